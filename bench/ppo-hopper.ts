/**
 * PPO on hopper with Gymnasium's hand-written reward (Hopper-v5's reward, run in the reward sandbox as a search's
 * candidate is), CleanRL's ppo_continuous_action settings (the task's PpoConfig), to 1M env steps by default.
 * Prints, as training goes: env steps, the mean Gymnasium return and F (forward distance, m) of the training
 * episodes that ended since the last line (CleanRL's charts/episodic_return), env steps/s and wall time; then
 * the greedy checkpoint evaluations (F on the eval seeds) and where the time went. Target (docs/spec/reward-search.md
 * §2): return ≥ 1,500 within 1M steps (CleanRL: about 2,000–2,500).
 *
 *   node --import tsx bench/ppo-hopper.ts [--steps 1000000] [--seed 0] [--every 20480] [--task hopper]
 *
 * Wall-clock figures depend on whatever else the machine runs.
 */
import { compileReward } from "../levels/reward-search/sandbox/reward-sandbox.ts";
import { loadTask } from "../levels/reward-search/tasks/index.ts";
import { PpoConfig } from "../levels/reward-search/task.ts";
import { trainPpo } from "../levels/reward-search/trainer/ppo.ts";
import { tf } from "../levels/reward-search/trainer/tf.ts";

const arg = (name: string): string | undefined => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const STEPS = Number(arg("steps") ?? 1_000_000);
const SEED = Number(arg("seed") ?? 0);
const EVERY = Number(arg("every") ?? 20_480);
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
console.log(
  `ppo bench: ${task.id}, Gymnasium's reward (sandboxed), ${STEPS} env steps, train seed ${instance.trainSeed}, ${new Date().toISOString()}, node ${process.version}\n` +
    `PpoConfig ${JSON.stringify(cfg)}\n`,
);
console.log("| env steps | return (train episodes) | F (m) | episodes | env steps/s | wall | tfjs wasm heap MiB |");
console.log("|---:|---:|---:|---:|---:|---:|---:|");
/** The tfjs wasm module's heap (it only grows; its cap is 4 GiB): watched because it grows every iteration. */
const heapMiB = (): string => {
  const heap = (tf.backend() as unknown as { wasm?: { HEAPU8?: Uint8Array } }).wasm?.HEAPU8;
  return heap ? (heap.length / 2 ** 20).toFixed(0) : "–";
};

const t0 = performance.now();
let window = { ret: 0, f: 0, episodes: 0 };
let lastPrint = 0;
const fmt = (v: number, d = 0) => (Number.isFinite(v) ? v.toFixed(d) : "–");
const clock = (ms: number) => `${Math.floor(ms / 60_000)}m${String(Math.round((ms % 60_000) / 1000)).padStart(2, "0")}s`;
const r = await trainPpo({
  task,
  instance,
  reward,
  steps: STEPS,
  seed: instance.trainSeed,
  evalSeeds: instance.evalSeeds,
  onProgress: (p) => {
    // Iteration means, weighted by a one-episode count where an iteration ended none; good enough for a curve.
    if (p.episodeReturn !== null && p.fitness !== null) {
      window.ret += p.episodeReturn;
      window.f += p.fitness;
      window.episodes++;
    }
    if (p.steps - lastPrint < EVERY && p.steps < STEPS) return;
    lastPrint = p.steps;
    const ms = performance.now() - t0;
    const n = window.episodes;
    console.log(
      `| ${p.steps} | ${fmt(window.ret / n)} | ${fmt(window.f / n, 2)} | ${n ? "≥" + n : 0} | ${fmt((p.steps / ms) * 1000)} | ${clock(ms)} | ${heapMiB()} |`,
    );
    window = { ret: 0, f: 0, episodes: 0 };
  },
});
reward.dispose();

console.log(`\ngreedy checkpoint F (mean over eval seeds ${instance.evalSeeds.join(", ")}):`);
for (const c of r.fitnessCurve) console.log(`  ${String(c.step).padStart(8)} steps  F ${c.fitness.toFixed(2)} m`);
const t = r.timing;
const share = (ms: number) => `${((100 * ms) / r.wallMs).toFixed(0)}%`;
console.log(
  `\nfinal F ${r.final.fitness.toFixed(2)} m (per seed ${r.final.perSeed.map((v) => v.toFixed(2)).join(", ")}); ${r.steps} steps in ${clock(r.wallMs)} ` +
    `(${fmt((r.steps / r.wallMs) * 1000)} env steps/s); rollout ${share(t.rolloutMs)}, reward ${share(t.rewardMs)}, update ${share(t.updateMs)} ` +
    `(${t.updates} minibatch updates, ${fmt(t.updates / (t.updateMs / 1000))}/s), eval ${share(t.evalMs)}`,
);
