/**
 * PPO on hopper with Gymnasium's hand-written reward (Hopper-v5's reward, run in the reward sandbox as a search's
 * candidate is), CleanRL's ppo_continuous_action settings (the task's PpoConfig), to 1M env steps by default.
 * Prints, every `--every` env steps and at the end, CleanRL's charts/episodic_return as the reference
 * (../shared/reference/cleanrl-hopper/) prints it: the mean return of the training episodes that ended in that
 * window, per episode (the reward program's sum, before normalisation), their mean F (forward distance, m), env
 * steps/s and wall time. Then the bound (env steps/s of the env alone and of the rollouts alone beside PPO's), the
 * share of each phase, the last window's training-episode return beside the deterministic evaluation of the final
 * policy (return and F on the eval seeds). Target (docs/spec/reward-search.md §2): return ≥ 1,500 within 1M steps.
 *
 *   node --import tsx bench/ppo-hopper.ts [--steps 1000000] [--seed 0] [--every 20480] [--task hopper]
 *        [--env-steps 20000] [--json] [--write-page]
 *
 * --env-steps 0 skips the env-alone measurement; --json ends with one line of JSON (the summary bench/ppo-parity.ts
 * reads). Wall-clock figures depend on whatever else the machine runs.
 */
import { compileReward } from "../levels/reward-search/sandbox/reward-sandbox.ts";
import { loadTask } from "../levels/reward-search/tasks/index.ts";
import { PpoConfig } from "../levels/reward-search/task.ts";
import { trainPpo } from "../levels/reward-search/trainer/ppo.ts";
import { mean } from "../src/util/stats.ts";
import { stepRate } from "./env-rate.ts";
import { greedyEpisode } from "./greedy-return.ts";
import { recordPage } from "./page.ts";

recordPage("ppo-hopper");

const arg = (name: string): string | undefined => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const STEPS = Number(arg("steps") ?? 1_000_000);
const SEED = Number(arg("seed") ?? 0);
const EVERY = Number(arg("every") ?? 20_480);
const ENV_STEPS = Number(arg("env-steps") ?? 20_000);
const JSON_OUT = process.argv.includes("--json");
const task = await loadTask(arg("task") ?? "hopper");
if (task.humanReward === null) throw new Error(`bench/ppo-hopper.ts: ${task.id} has no hand-written reward; pass a task that has one`);

const instance = task.generate(SEED);
const reward = await compileReward(task.humanReward, {
  observation: task.observation,
  actionNames: task.actionNames,
  actionKind: "continuous",
  info: task.info,
});
const cfg = PpoConfig.parse(task.training.ppo);
const batch = cfg.numEnvs * cfg.numSteps;
const lastSteps = Math.max(1, Math.floor(STEPS / batch)) * batch;
console.log(
  `ppo bench: ${task.id}, Gymnasium's reward (sandboxed), ${STEPS} env steps (${lastSteps} trained), train seed ${instance.trainSeed}\n` +
    `PpoConfig ${JSON.stringify(cfg)}\n`,
);

console.log("| env steps | return (train episodes, per episode) | F (m) | episodes | env steps/s | wall | RSS MiB |");
console.log("|---:|---:|---:|---:|---:|---:|---:|");
/** The process's resident memory: a trainer's stays flat (docs/spec/reward-search.md, "Kernels"). */
const rssMiB = (): string => (process.memoryUsage().rss / 2 ** 20).toFixed(0);
const fmt = (v: number, d = 0) => (Number.isFinite(v) ? v.toLocaleString("en-US", { minimumFractionDigits: d, maximumFractionDigits: d }) : "–");
const clock = (ms: number) => `${Math.floor(ms / 60_000)}m${String(Math.round((ms % 60_000) / 1000)).padStart(2, "0")}s`;

/** A window's training episodes, summed per episode (an iteration's means weighted by its episode count). */
let window = { ret: 0, f: 0, episodes: 0 };
let windowStart = 0;
let lastWindow = { fromStep: 0, toStep: 0, return: Number.NaN, fitness: Number.NaN, episodes: 0 };
const t0 = performance.now();
const r = await trainPpo({
  task,
  instance,
  reward,
  steps: STEPS,
  seed: instance.trainSeed,
  evalSeeds: instance.evalSeeds,
  onProgress: (p) => {
    if (p.episodes > 0 && p.episodeReturn !== null && p.fitness !== null) {
      window.ret += p.episodeReturn * p.episodes;
      window.f += p.fitness * p.episodes;
      window.episodes += p.episodes;
    }
    // The reference prints every 10th iteration and at the last: the same windows when EVERY is 10 rollouts.
    if (p.steps % EVERY !== 0 && p.steps !== lastSteps) return;
    const n = window.episodes;
    lastWindow = { fromStep: windowStart, toStep: p.steps, return: window.ret / n, fitness: window.f / n, episodes: n };
    const ms = performance.now() - t0;
    console.log(`| ${p.steps} | ${fmt(window.ret / n)} | ${fmt(window.f / n, 2)} | ${n} | ${fmt((p.steps / ms) * 1000)} | ${clock(ms)} | ${rssMiB()} |`);
    window = { ret: 0, f: 0, episodes: 0 };
    windowStart = p.steps;
  },
});
const greedy = instance.evalSeeds.map((seed) => greedyEpisode(task, instance, r.policy, reward, seed));
reward.dispose();
// Measured after training, when the JIT has settled: the env alone, one env, random actions.
const envAlone = ENV_STEPS > 0 ? stepRate(task.makeEnv(instance, 1), ENV_STEPS) : null;

console.log(`\ngreedy checkpoint F (mean over eval seeds ${instance.evalSeeds.join(", ")}):`);
for (const c of r.fitnessCurve) console.log(`  ${String(c.step).padStart(8)} steps  F ${c.fitness.toFixed(2)} m`);

const t = r.timing;
const sps = (ms: number) => (r.steps * 1000) / ms;
const share = (ms: number) => `${((100 * ms) / r.wallMs).toFixed(0)}%`;
const other = r.wallMs - t.rolloutMs - t.rewardMs - t.updateMs - t.evalMs;
console.log(
  `\nbound, env steps/s on one thread: env alone ${envAlone === null ? "not measured" : fmt(envAlone)} · rollout only (policy + env) ${fmt(sps(t.rolloutMs))} · ` +
    `PPO ${fmt(sps(r.wallMs))} (without its checkpoint evaluations ${fmt(sps(r.wallMs - t.evalMs))})`,
);
console.log(
  `time split: rollout ${share(t.rolloutMs)}, update ${share(t.updateMs)} (${t.updates} minibatch updates, ${fmt(t.updates / (t.updateMs / 1000))}/s), ` +
    `reward + GAE ${share(t.rewardMs)}, evaluation ${share(t.evalMs)}, other ${share(other)}; ${r.steps} steps in ${clock(r.wallMs)}`,
);
console.log(
  `training episodes' return, last window (CleanRL's charts/episodic_return, per episode, stochastic policy): ${fmt(lastWindow.return)} ` +
    `over ${lastWindow.episodes} episodes ending in steps ${lastWindow.fromStep + 1}–${lastWindow.toStep}; F ${fmt(lastWindow.fitness, 2)} m`,
);
console.log(
  `deterministic evaluation of the final policy (mean action, eval seeds ${instance.evalSeeds.join(", ")}): return ${fmt(mean(greedy.map((g) => g.return)))} ` +
    `(${greedy.map((g) => fmt(g.return)).join(" / ")}), F ${fmt(r.final.fitness, 2)} m (${r.final.perSeed.map((v) => v.toFixed(2)).join(" / ")})`,
);
if (JSON_OUT) {
  const summary = {
    side: "hexa",
    task: task.id,
    seed: SEED,
    trainSeed: instance.trainSeed,
    steps: r.steps,
    lastWindow,
    sps: sps(r.wallMs),
    rolloutSps: sps(t.rolloutMs),
    envAloneSps: envAlone,
    greedyReturn: mean(greedy.map((g) => g.return)),
    finalF: r.final.fitness,
  };
  console.log(JSON.stringify(summary));
}
