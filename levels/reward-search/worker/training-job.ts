import { z } from "zod";
import { HexaVersion, JOB_SCHEMA_VERSION } from "../../../src/family/job-envelope.ts";
import { JobBudget, TrainMessage } from "../trainer/protocol.ts";

export { TRAININGS } from "./trainings-queue.ts";

/** The trainer settings a worker builds its local pool from (the reward-search config's trainer slice, cache and jobs dirs). */
const TrainerSettings = z.record(z.string(), z.unknown());

export const TrainingJobData = z.discriminatedUnion("kind", [
  z.object({ schemaVersion: z.literal(JOB_SCHEMA_VERSION), hexa: HexaVersion, kind: z.literal("hello"), trainer: TrainerSettings }),
  z.object({
    schemaVersion: z.literal(JOB_SCHEMA_VERSION),
    hexa: HexaVersion,
    kind: z.literal("train"),
    trainer: TrainerSettings,
    job: TrainMessage.omit({ type: true, id: true, jobDir: true, budget: true }),
    budget: JobBudget.optional(),
    label: z.string().optional(),
    /** The caller reads the training's PPO loss summary: the worker trains again a cache entry that keeps none (trainer/pool.ts). */
    needsLosses: z.boolean().optional(),
  }),
]);
export type TrainingJobData = z.infer<typeof TrainingJobData>;
