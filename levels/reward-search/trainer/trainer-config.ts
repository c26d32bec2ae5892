import { z } from "zod";
import { DEADLINE_FLOOR_MS, DEADLINE_MS_PER_STEP } from "./host-limits.ts";

/** The `trainer:` slice of the reward-search config (levels/reward-search/config.ts): which trainer runs, how many, and their limits. */
export const TrainerConfig = z.strictObject({
  command: z
    .array(z.string().min(1))
    .min(1)
    .optional()
    .describe("program and arguments of a trainer that speaks docs/trainer-protocol.md; unset: the built-in PPO trainer"),
  processes: z.number().int().min(1).optional().describe("trainer processes run at once; unset: one per free core"),
  startTimeoutMs: z.number().int().min(1).default(60_000).describe("how long a trainer may take to say hello"),
  wallMs: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe(
      `wall-clock budget of one training job, in ms, past which it is cancelled; unset: ${DEADLINE_FLOOR_MS / 60_000} minutes + ${DEADLINE_MS_PER_STEP} ms per env step of the job`,
    ),
  maxSteps: z.number().int().min(1).optional().describe("env-step budget of one training job; unset: none beyond the job's steps"),
});
export type TrainerConfig = z.infer<typeof TrainerConfig>;
