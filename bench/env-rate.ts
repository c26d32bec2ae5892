/**
 * An env's speed alone (docs/spec/reward-search.md §2): env steps/s, summed over its envs, of uniform random
 * actions in this thread, episodes auto-reset, after a short warm-up. Used by bench/mujoco.ts and
 * bench/ppo-hopper.ts (the bound PPO's rollout cannot beat).
 */
import type { VecEnv } from "../levels/reward-search/task.ts";
import { createRng } from "../src/util/rng.ts";

export const stepRate = (env: VecEnv, steps: number): number => {
  if (env.action.kind !== "continuous") throw new Error("bench/env-rate.ts: pass MuJoCo tasks only (continuous actions)");
  const { dim, low, high } = env.action;
  const rng = createRng(1);
  const actions = Array.from({ length: 256 }, () => Float64Array.from({ length: env.numEnvs * dim }, (_, k) => rng.uniform(low[k % dim]!, high[k % dim]!)));
  env.reset(0);
  for (let t = 0; t < 200; t++) env.step(actions[t % 256]!);
  const w0 = performance.now();
  const calls = Math.ceil(steps / env.numEnvs);
  for (let t = 0; t < calls; t++) env.step(actions[t % 256]!);
  return (calls * env.numEnvs * 1000) / (performance.now() - w0);
};
