/**
 * The trainer's checkpoint evaluations: when they run, and F of the greedy policy (argmax / mean actions) on the
 * evaluation seeds. The final one is the reported score (docs/trainer-protocol.md, `result.final`).
 */
import type { RewardTask, TaskInstance } from "../task.ts";
import type { RunningNorm } from "./normalisers.ts";
import { ActorCritic } from "./actor-critic.ts";
import { greedyActions, type PolicyLayout } from "./policy.ts";

/** F of one greedy episode per seed, each on a fresh single env, up to the task's time limit. */
export const evaluateGreedy = (
  task: RewardTask,
  instance: TaskInstance,
  layout: PolicyLayout,
  theta: Float32Array,
  norm: RunningNorm | null,
  seeds: readonly number[],
): number[] =>
  seeds.map((seed) => {
    const net = new ActorCritic(layout, 1);
    net.load(theta);
    const nObs = new Float64Array(layout.obsDim);
    const env = task.makeEnv(instance, 1);
    let obs = env.reset(seed);
    let f = 0;
    for (let t = 0; t < task.maxEpisodeSteps; t++) {
      net.forward(norm ? norm.apply(obs, nObs) : obs, 1, "head");
      const b = env.step(greedyActions(layout, net.head, 1));
      f += b.fitness[0]!;
      if (b.terminated[0] || b.truncated[0]) break;
      obs = b.obs;
    }
    env.close?.();
    return f;
  });

/** Iterations (0-based) after which a checkpoint evaluation runs: ~evenly spaced, always the last. */
export const checkpointIterations = (numIterations: number, count: number): Set<number> => {
  const s = new Set<number>();
  const c = Math.min(count, numIterations);
  for (let j = 1; j <= c; j++) s.add(Math.round((j * numIterations) / c) - 1);
  return s;
};
