import { z } from "zod";
import { TrainerConfig } from "./trainer/pool.ts";

/** How a run searches reward functions (docs/spec/reward-search.md §8): the round loop with the bank, or a whole search per task. */
export const STRATEGY_NAMES = ["rounds", "eureka", "rf-agent"] as const;

/** The reward-search family's slice of a run config (`rewardSearch:`), docs/spec/reward-search.md §1. */
export const RewardSearchConfig = z.strictObject({
  trainer: TrainerConfig.prefault({}).describe("the trainer process (docs/trainer-protocol.md): the built-in PPO trainer unless command is set"),
  trainSteps: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe("env steps of a train_policy call when the model gives none; unset: a quarter of the task's full budget"),
  finishSteps: z.number().int().min(1).optional().describe("env steps of the scored training behind finish; unset: the task's full budget"),
  checkTransitions: z.number().int().min(16).default(320).describe("sampled transitions check_reward runs the code on"),
  cacheDir: z.string().default("runs/.trainer-cache").describe("trainings cached by (task, instance, code, seed, steps, trainer): a repeated candidate or a resumed run trains nothing twice"),
  jobsDir: z.string().default("runs/.trainer-jobs").describe("one directory per training job (its code, request, policy and result)"),
  strategy: z
    .enum(STRATEGY_NAMES)
    .default("rounds")
    .describe("rounds: the round loop with the evolving bank; eureka: K × I greedy evolution per task; rf-agent: RF-Agent's tree search per task (each on the task's first stream seed, trainSteps per candidate)"),
  budget: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe(
      "trained candidates per task: exact for eureka and rf-agent (default 16); rounds: the run's trainings of the task (train_policy and finish), shared over its offline and stream episodes, an early commit's rest passed on to later rounds (the heuristic spends every share); set: every strategy ends with final-scores.json",
    ),
  eureka: z.strictObject({ samples: z.number().int().min(1).default(4).describe("K: candidates per iteration; I = budget / K") }).prefault({}).describe("eureka's knobs"),
  rfAgent: z
    .strictObject({
      initial: z.number().int().min(1).default(4).describe("first designs, the root's children"),
      children: z.number().int().min(1).default(8).describe("children of one expansion (8: shares 2, 2, 2, 1, 1 of the five operators)"),
    })
    .prefault({})
    .describe("rf-agent's knobs"),
});
export type RewardSearchConfig = z.infer<typeof RewardSearchConfig>;

/** Steps of a quick training and of the scored one, for a task's full budget. */
export const budgetsOf = (c: RewardSearchConfig, fullSteps: number) => ({
  train: c.trainSteps ?? Math.max(1, Math.round(fullSteps / 4)),
  finish: c.finishSteps ?? fullSteps,
});
