import { z } from "zod";
import { TrainerConfig } from "../../src/trainer/pool.ts";

/** The reward-search family's slice of a run config (`rewardSearch:`), issue 10. */
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
});
export type RewardSearchConfig = z.infer<typeof RewardSearchConfig>;

/** Steps of a quick training and of the scored one, for a task's full budget. */
export const budgetsOf = (c: RewardSearchConfig, fullSteps: number) => ({
  train: c.trainSteps ?? Math.max(1, Math.round(fullSteps / 4)),
  finish: c.finishSteps ?? fullSteps,
});
