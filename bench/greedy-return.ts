/**
 * The deterministic (mean-action) evaluation of a trained policy as bench/ppo-hopper.ts reports it: per eval
 * seed, one episode on a fresh env up to the task's time limit, its F and its return under the training reward
 * (the reward program on the episode's transitions, actions clipped to the action space as in training), so the
 * greedy return can sit beside CleanRL's stochastic training-episode return.
 */
import type { RewardProgram, RewardTask, TaskInstance } from "../levels/reward-search/task.ts";
import { evaluateChunked } from "../levels/reward-search/trainer/reward-batches.ts";
import { loadPolicy, type SerializedPolicy } from "../levels/reward-search/trainer/policy.ts";

export interface GreedyEpisode {
  seed: number;
  fitness: number;
  return: number;
  steps: number;
}

const append = (parts: Float64Array[], total: number): Float64Array => {
  const out = new Float64Array(total);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
};

export const greedyEpisode = (task: RewardTask, instance: TaskInstance, saved: SerializedPolicy, reward: RewardProgram, seed: number): GreedyEpisode => {
  const policy = loadPolicy(saved);
  const env = task.makeEnv(instance, 1);
  if (env.action.kind !== "continuous") throw new Error("bench/greedy-return.ts: continuous-action tasks only");
  const { low, high, dim } = env.action;
  const obs: Float64Array[] = [],
    acts: Float64Array[] = [],
    next: Float64Array[] = [];
  const info: Record<string, number[]> = {};
  let o = env.reset(seed);
  let fitness = 0;
  try {
    for (let t = 0; t < task.maxEpisodeSteps; t++) {
      const a = Float64Array.from(policy.act(o, 1));
      const b = env.step(a);
      obs.push(o);
      acts.push(a.map((v, j) => Math.max(low[j % dim]!, Math.min(high[j % dim]!, v))));
      next.push(b.nextObs);
      for (const [k, v] of Object.entries(b.info)) (info[k] ??= []).push(v[0]!);
      fitness += b.fitness[0]!;
      if (b.terminated[0] || b.truncated[0]) break;
      o = b.obs;
    }
  } finally {
    env.close?.();
  }
  const n = obs.length;
  const out = evaluateChunked(
    reward,
    {
      n,
      obs: append(obs, n * env.obsDim),
      action: append(acts, n * dim),
      nextObs: append(next, n * env.obsDim),
      info: Object.fromEntries(Object.entries(info).map(([k, v]) => [k, Float64Array.from(v)])),
    },
    env.obsDim,
    dim,
  );
  return { seed, fitness, return: out.total.reduce((s, v) => s + v, 0), steps: n };
};
