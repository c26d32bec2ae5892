/**
 * MuJoCo env speed, per task: env steps/s (frame_skip included) of one env stepped alone with uniform random
 * actions in one thread, episodes auto-reset; plus the time to load the wasm module and model (prepare).
 * The MuJoCo tasks: docs/spec/reward-search.md §2.
 *
 *   node --import tsx bench/mujoco.ts [--tasks hopper,ant] [--steps 20000]
 */
import { loadTask } from "../families/reward-search/tasks/index.ts";
import { createRng } from "../src/util/rng.ts";

const arg = (name: string): string | undefined => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const MUJOCO_TASKS = ["hopper", "walker2d", "half_cheetah", "ant", "inverted_pendulum"];
const taskIds = arg("tasks")?.split(",") ?? MUJOCO_TASKS;
const STEPS = Number(arg("steps") ?? 20_000);

for (const id of taskIds) {
  const t0 = performance.now();
  const task = await loadTask(id);
  const prepareMs = performance.now() - t0;
  const env = task.makeEnv(task.generate(0), 1);
  if (env.action.kind !== "continuous") throw new Error(`bench/mujoco.ts: ${id} has discrete actions; pass MuJoCo tasks only`);
  const { dim, low, high } = env.action;
  const rng = createRng(1);
  const actions = Array.from({ length: 256 }, () => Float64Array.from({ length: dim }, (_, k) => rng.uniform(low[k]!, high[k]!)));
  env.reset(0);
  for (let t = 0; t < 500; t++) env.step(actions[t % 256]!);
  let episodes = 0;
  const c0 = process.cpuUsage(),
    w0 = performance.now();
  for (let t = 0; t < STEPS; t++) {
    const b = env.step(actions[t % 256]!);
    if (b.terminated[0] || b.truncated[0]) episodes++;
  }
  const wallS = (performance.now() - w0) / 1000,
    c = process.cpuUsage(c0),
    cpuS = (c.user + c.system) / 1e6;
  env.close?.();
  console.log(
    `${id.padEnd(18)} ${String(Math.round(STEPS / wallS)).padStart(7)} steps/s wall  ${String(Math.round(STEPS / cpuS)).padStart(7)} steps/s CPU  ` +
      `(${STEPS} steps, ${episodes} episodes ended; prepare ${prepareMs.toFixed(0)} ms)`,
  );
}
