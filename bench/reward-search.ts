/**
 * Reward-search trainer speed and reach, per task: env-steps/s of the vectorised env alone and inside PPO, PPO
 * minibatch updates/s, the reward sandbox's overhead (the task's human reward compiled in src/sandbox vs the
 * same code as a plain host function), and with --full the steps and wall time to reach the task's solved F with
 * its human reward plus F(sparse) at the same budget.
 *
 *   node --import tsx bench/reward-search.ts [--tasks cartpole,pendulum] [--full] [--iters 12]
 *
 * Wall-clock figures depend on whatever else the machine runs; CPU-time figures (process.cpuUsage, one thread)
 * are steadier. "sandbox overhead (est.)" = (sandbox − host) reward CPU µs per transition, measured on a
 * rollout-sized batch of real transitions, over PPO's CPU µs per env step with the host reward; "(2 runs)"
 * compares two whole trainings and carries their noise.
 */
import { existsSync } from "node:fs";
import { listTasks, loadTask } from "../levels/reward-search/tasks/index.ts";
import type { RewardBatchInput, RewardProgram, RewardTask } from "../levels/reward-search/task.ts";
import { PpoConfig } from "../levels/reward-search/task.ts";
import { hostRewardProgram } from "../levels/reward-search/trainer/host-reward.ts";
import { trainPpo, type TrainResult } from "../levels/reward-search/trainer/ppo.ts";
import { evaluateChunked } from "../levels/reward-search/trainer/reward-batches.ts";
import { xoshiro128ss } from "../src/util/rng.ts";
import { recordPage } from "./page.ts";

recordPage("reward-search");

const arg = (name: string): string | undefined => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const FULL = process.argv.includes("--full");
const ITERS = Number(arg("iters") ?? 12);
const taskIds = arg("tasks")?.split(",") ?? listTasks();

type Compile = (code: string, task: RewardTask) => Promise<RewardProgram>;
const sandboxPath = new URL("../levels/reward-search/sandbox/reward-sandbox.ts", import.meta.url);
const compileSandboxed: Compile | null = existsSync(sandboxPath)
  ? await (async () => {
      const mod = (await import(sandboxPath.href)) as { compileReward: (code: string, layout: unknown) => Promise<RewardProgram> };
      return (code: string, task: RewardTask) => {
        const kind = task.makeEnv(task.generate(0), 1).action.kind;
        return mod.compileReward(code, { observation: task.observation, actionNames: task.actionNames, actionKind: kind, info: task.info });
      };
    })()
  : null;
const host = (code: string, task: RewardTask): RewardProgram => hostRewardProgram(code, task, task.makeEnv(task.generate(0), 1).action.kind === "discrete");

const f = (v: number, d = 0) => (Number.isFinite(v) ? v.toFixed(d) : "–");
const row = (cells: Array<string | number>) => `| ${cells.join(" | ")} |`;

const envAlone = (task: RewardTask, numEnvs: number, steps: number): number => {
  const env = task.makeEnv(task.generate(0), numEnvs);
  const rng = xoshiro128ss(1);
  env.reset(1);
  const sp = env.action;
  const acts = sp.kind === "discrete" ? new Int32Array(numEnvs) : new Float64Array(numEnvs * sp.dim);
  const t0 = performance.now();
  for (let s = 0; s < steps; s += numEnvs) {
    if (sp.kind === "discrete") for (let i = 0; i < numEnvs; i++) acts[i] = rng.int(sp.n);
    else for (let i = 0; i < acts.length; i++) acts[i] = sp.low[i % sp.dim]! + rng.next() * (sp.high[i % sp.dim]! - sp.low[i % sp.dim]!);
    env.step(acts);
  }
  return (steps / (performance.now() - t0)) * 1000;
};

const cpuMs = () => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

/** A training run plus the process CPU time it took (one thread: steadier than wall time on a shared machine). */
/** A rollout-sized batch of real transitions (random actions), as the trainer hands it to a reward program. */
const sampleBatch = (task: RewardTask, numEnvs: number, steps: number): RewardBatchInput => {
  const env = task.makeEnv(task.generate(0), numEnvs);
  const d = env.obsDim,
    sp = env.action,
    k = sp.kind === "discrete" ? 1 : sp.dim,
    n = numEnvs * steps;
  const rng = xoshiro128ss(2);
  const b = { n, obs: new Float64Array(n * d), action: new Float64Array(n * k), nextObs: new Float64Array(n * d), info: {} as Record<string, Float64Array> };
  let obs = env.reset(2);
  for (let t = 0; t < steps; t++) {
    const acts =
      sp.kind === "discrete"
        ? Int32Array.from({ length: numEnvs }, () => rng.int(sp.n))
        : Float64Array.from({ length: numEnvs * k }, (_, i) => sp.low[i % k]! + rng.next() * (sp.high[i % k]! - sp.low[i % k]!));
    const r = env.step(acts);
    b.obs.set(obs, t * numEnvs * d);
    b.action.set(acts, t * numEnvs * k);
    b.nextObs.set(r.nextObs, t * numEnvs * d);
    for (const [key, v] of Object.entries(r.info)) (b.info[key] ??= new Float64Array(n)).set(v, t * numEnvs);
    obs = r.obs;
  }
  return b;
};

/** CPU µs per transition of a reward program over a batch (chunked as the trainer does), after a warm-up. */
const rewardCpuPerRow = (prog: RewardProgram, b: RewardBatchInput, obsDim: number, actDim: number): number => {
  for (let i = 0; i < 10; i++) evaluateChunked(prog, b, obsDim, actDim); // warm-up: the wasm tiers up in the background
  const c0 = cpuMs(),
    reps = 20;
  for (let i = 0; i < reps; i++) evaluateChunked(prog, b, obsDim, actDim);
  return ((cpuMs() - c0) * 1000) / (reps * b.n);
};

const train = async (
  task: RewardTask,
  reward: RewardProgram,
  steps: number,
  checkpoints: number,
  onStep?: (steps: number, ms: number) => void,
): Promise<TrainResult & { cpuMs: number }> => {
  const instance = task.generate(0);
  const t0 = performance.now(),
    c0 = cpuMs();
  const r = await trainPpo({
    task,
    instance,
    reward,
    steps,
    seed: instance.trainSeed,
    evalSeeds: instance.evalSeeds,
    options: { checkpoints },
    onProgress: (p) => onStep?.(p.steps, performance.now() - t0),
  });
  return { ...r, cpuMs: cpuMs() - c0 };
};

console.log(
  `reward-search bench: ${new Date().toISOString()}, node ${process.version}, sandbox ${compileSandboxed ? "present" : "absent"}; wall-clock, noisy on a shared machine\n`,
);
const speed: string[] = [
  row([
    "task",
    "envs × steps, minibatch",
    "env alone steps/s",
    "PPO env-steps/s (wall)",
    "PPO env-steps per CPU-s",
    "updates/s",
    "ms/update",
    "rollout / reward / update %",
    "reward CPU µs/step host",
    "reward CPU µs/step sandbox",
    "sandbox overhead (est.)",
    "sandbox overhead (2 runs, CPU)",
  ]),
  row(["---", "---", "---:", "---:", "---:", "---:", "---:", "---:", "---:", "---:", "---:", "---:"]),
];
const reach: string[] = [
  row(["task", "budget", "solved F", "F(human) final", "best checkpoint", "steps to solved", "wall s to solved", "wall s / CPU s total", "F(sparse) final"]),
  row(["---", "---:", "---:", "---:", "---:", "---:", "---:", "---:", "---:"]),
];

for (const id of taskIds) {
  const task = await loadTask(id);
  const cfg = PpoConfig.parse(task.training.ppo);
  const B = cfg.numEnvs * cfg.numSteps;
  const code = task.humanReward ?? task.sparseReward;
  envAlone(task, cfg.numEnvs, 5000); // JIT warm-up
  const alone = envAlone(task, cfg.numEnvs, 50_000);
  await train(task, host(code, task), B * 2, 1); // warm-up (tf backend, JIT)
  const h = await train(task, host(code, task), B * ITERS, 1);
  const tm = h.timing;
  const pct = (x: number) => f((100 * x) / h.wallMs);
  const probe = task.makeEnv(task.generate(0), 1);
  const actDim = probe.action.kind === "discrete" ? 1 : probe.action.dim;
  const batch = sampleBatch(task, cfg.numEnvs, cfg.numSteps);
  const hostRow = rewardCpuPerRow(host(code, task), batch, probe.obsDim, actDim);
  const ppoCpuPerStep = (1000 * h.cpuMs) / h.steps;
  let sbCell = "–",
    overhead = "–",
    estimate = "–";
  if (compileSandboxed) {
    const prog = await compileSandboxed(code, task);
    try {
      const sbRow = rewardCpuPerRow(prog, batch, probe.obsDim, actDim);
      sbCell = f(sbRow, 2);
      estimate = `${f((100 * (sbRow - hostRow)) / ppoCpuPerStep, 1)}%`;
      const s = await train(task, prog, B * ITERS, 1);
      overhead = `${f((100 * (s.cpuMs - h.cpuMs)) / h.cpuMs, 1)}%`;
    } finally {
      prog.dispose();
    }
  }
  speed.push(
    row([
      id,
      `${cfg.numEnvs} × ${cfg.numSteps}, mb ${Math.min(cfg.minibatchSize, B)} × ${cfg.updateEpochs} ep`,
      f(alone),
      f((h.steps / h.wallMs) * 1000),
      f((h.steps / h.cpuMs) * 1000),
      f((tm.updates / tm.updateMs) * 1000),
      f(tm.updateMs / tm.updates, 2),
      `${pct(tm.rolloutMs)} / ${pct(tm.rewardMs)} / ${pct(tm.updateMs)}`,
      f(hostRow, 2),
      sbCell,
      estimate,
      overhead,
    ]),
  );
  console.log(speed.at(-1));

  if (FULL) {
    const budget = task.training.steps;
    const wallAt = new Map<number, number>();
    const human = await train(task, host(code, task), budget, 40, (s, ms) => wallAt.set(s, ms));
    const hit = human.fitnessCurve.find((p) => p.fitness >= task.fitness.solved);
    const sparse = await train(task, host(task.sparseReward, task), budget, 10);
    reach.push(
      row([
        id,
        budget,
        task.fitness.solved,
        f(human.final.fitness, 1),
        `${f(human.bestCheckpoint.fitness, 1)} @ ${human.bestCheckpoint.step}`,
        hit ? hit.step : "not reached",
        hit ? f(wallAt.get(hit.step)! / 1000, 1) : "–",
        `${f(human.wallMs / 1000, 1)} / ${f(human.cpuMs / 1000, 1)}`,
        f(sparse.final.fitness, 1),
      ]),
    );
    console.log(reach.at(-1));
  }
}

console.log(`\n${speed.join("\n")}`);
if (FULL) console.log(`\n${reach.join("\n")}`);
