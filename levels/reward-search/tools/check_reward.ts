import { rewardLayoutOf } from "../sandbox/contract.ts";
import { z } from "zod";
import type { RewardTask, TaskInstance } from "../task.ts";
import { checkReward, type CheckBatch } from "../sandbox/reward-check.ts";
import { createRng } from "../../../src/util/rng.ts";
import { defineRewardTool } from "./reward-tool.ts";

const ENVS = 16;

/**
 * Transitions from random actions on the instance's training seed: what check_reward runs the code on (no
 * training), with where an episode ended by the task's rule (so a survival term is told from a constant one).
 */
export const sampleTransitions = (task: RewardTask, instance: TaskInstance, count: number): CheckBatch[] => {
  const env = task.makeEnv(instance, ENVS);
  try {
    const rng = createRng(instance.trainSeed + 7919);
    let obs = env.reset(instance.trainSeed);
    const out: CheckBatch[] = [];
    const dim = env.action.kind === "discrete" ? 1 : env.action.dim;
    for (let done = 0; done < count; done += ENVS) {
      const action = new Float64Array(ENVS * dim);
      if (env.action.kind === "discrete") for (let i = 0; i < ENVS; i++) action[i] = rng.integers(0, env.action.n);
      else for (let i = 0; i < ENVS * dim; i++) action[i] = rng.uniform(env.action.low[i % dim]!, env.action.high[i % dim]!);
      const step = env.step(env.action.kind === "discrete" ? Int32Array.from(action) : action);
      out.push({ n: ENVS, obs, action, nextObs: step.nextObs, info: step.info, terminated: Uint8Array.from(step.terminated) });
      obs = step.obs;
    }
    return out;
  } finally {
    env.close?.();
  }
};

export default defineRewardTool({
  name: "check_reward",
  description:
    "Compile your reward code and run it on a few hundred transitions sampled with random actions (seconds, no training): each component's range, " +
    "NaN or errors with their line, components that never change, and a component that dominates the reward.",
  input: z.object({ code: z.string().min(1).describe("JavaScript defining function reward(obs, action, nextObs, info) → { total, components }") }),
  run: async (s, a) => {
    await s.task.prepare?.();
    const layout = rewardLayoutOf(s.task, s.instance);
    const check = await checkReward(a.code, layout, sampleTransitions(s.task, s.instance, s.checkTransitions));
    return { result: check, observation: check.report };
  },
});
