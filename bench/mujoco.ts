/**
 * MuJoCo env speed, per task (docs/spec/reward-search.md §2):
 * - alone: env steps/s (frame_skip included) of one env stepped with uniform random actions in one thread,
 *   episodes auto-reset; plus the time to load the wasm module and model (prepare);
 * - threaded: `--envs` envs stepped in `--workers` worker threads (envs/threaded-env.ts), same actions;
 * - inside PPO: env steps/s of a short training (`--ppo-steps`) with the task's PpoConfig (CleanRL's: one env,
 *   2048-step rollouts, 10 epochs of 32 minibatches), its hand-written reward (sparse for held-out tasks) in
 *   the sandbox; and the same with `--envs` envs over `--workers` threads (rollouts of 2048 / envs steps, so
 *   the batch is the same).
 *
 *   node --import tsx bench/mujoco.ts [--tasks hopper,ant] [--steps 20000] [--envs 2] [--workers 2] [--ppo-steps 20480]
 *
 * Wall-clock figures depend on whatever else the machine runs.
 */
import { compileReward } from "../levels/reward-search/sandbox/reward-sandbox.ts";
import { openThreadedEnv } from "../levels/reward-search/envs/threaded-env.ts";
import type { RewardTask } from "../levels/reward-search/task.ts";
import { loadTask } from "../levels/reward-search/tasks/index.ts";
import { trainPpo } from "../levels/reward-search/trainer/ppo.ts";
import { stepRate } from "./env-rate.ts";
import { recordPage } from "./page.ts";

recordPage("mujoco");

const arg = (name: string): string | undefined => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const MUJOCO_TASKS = ["hopper", "walker2d", "half_cheetah", "ant", "humanoid", "inverted_pendulum"];
const taskIds = arg("tasks")?.split(",") ?? MUJOCO_TASKS;
const STEPS = Number(arg("steps") ?? 20_000);
const ENVS = Number(arg("envs") ?? 2);
const WORKERS = Number(arg("workers") ?? 2);
const PPO_STEPS = Number(arg("ppo-steps") ?? 20_480);

/** Env steps/s of a short training: overall (checkpoint evaluation excluded) and of its rollouts alone (policy + env). */
const ppoRate = async (task: RewardTask, numEnvs: number, envWorkers: number): Promise<{ overall: number; rollout: number }> => {
  const code = task.humanReward ?? task.sparseReward;
  const reward = await compileReward(code, { observation: task.observation, actionNames: task.actionNames, actionKind: "continuous", info: task.info });
  const base = task.training.ppo.numSteps ?? 2048;
  const instance = task.generate(0);
  try {
    const r = await trainPpo({
      task,
      instance,
      reward,
      steps: PPO_STEPS,
      seed: instance.trainSeed,
      evalSeeds: instance.evalSeeds,
      ppo: { numEnvs, numSteps: Math.floor(base / numEnvs) },
      options: { envWorkers, checkpoints: 1 },
    });
    return { overall: (r.steps * 1000) / (r.wallMs - r.timing.evalMs), rollout: (r.steps * 1000) / r.timing.rolloutMs };
  } finally {
    reward.dispose();
  }
};

const n = (v: number) => String(Math.round(v)).padStart(7);
console.log(`mujoco bench: ${new Date().toISOString()}, node ${process.version}; env steps/s, wall clock (noisy on a shared machine)\n`);
console.log(
  `| task | prepare ms | alone | ${ENVS} envs, 1 thread | ${ENVS} envs, ${WORKERS} workers | PPO 1 env (rollout) | PPO ${ENVS} envs, ${WORKERS} workers (rollout) |`,
);
console.log("|---|---:|---:|---:|---:|---:|---:|");
for (const id of taskIds) {
  const t0 = performance.now();
  const task = await loadTask(id);
  const prepareMs = performance.now() - t0;
  const instance = task.generate(0);
  const one = task.makeEnv(instance, 1);
  const alone = stepRate(one, STEPS);
  one.close?.();
  const many = task.makeEnv(instance, ENVS);
  const inThread = stepRate(many, STEPS);
  many.close?.();
  const threaded = await openThreadedEnv({ task, instance, numEnvs: ENVS, workers: WORKERS });
  const overThreads = stepRate(threaded, STEPS);
  threaded.close();
  const ppo1 = await ppoRate(task, 1, 1);
  const ppoN = await ppoRate(task, ENVS, WORKERS);
  console.log(
    `| ${id} | ${prepareMs.toFixed(0)} | ${n(alone)} | ${n(inThread)} | ${n(overThreads)} | ${n(ppo1.overall)} (${n(ppo1.rollout)}) | ${n(ppoN.overall)} (${n(ppoN.rollout)}) |`,
  );
}
console.log(
  `\nalone: ${STEPS} steps; PPO: ${PPO_STEPS} env steps, checkpoint evaluation excluded, worker start-up included; (rollout): steps/s of the rollouts alone (policy inference + env).`,
);
