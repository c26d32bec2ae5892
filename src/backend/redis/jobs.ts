import { z } from "zod";
import { Mistake, Skill } from "../../store/bank.ts";
import { Lesson, LESSONS_MAX } from "../../store/lesson.ts";
import { Phase, UsageLine } from "../../store/run-records.ts";
import { Trajectory } from "../../store/trajectory.ts";
import { RUN_AGENTS } from "../../loop/run-choices.ts";
import { Budget } from "../../llm/budget.ts";
import { HexaVersion, JOB_SCHEMA_VERSION } from "../../family/job-envelope.ts";

/**
 * The jobs a coordinator puts on Redis and what workers hand back (docs/ARCHITECTURE.md §7), each in the job
 * envelope of src/family/job-envelope.ts (schema version, the hexa that made it).
 */
export { HexaVersion, JOB_SCHEMA_VERSION, queueName } from "../../family/job-envelope.ts";
export { EPISODES } from "./queue-kinds.ts";

/** What every job starts with: read first, so a job of another version is refused with its version named. */
const JobHeader = z.looseObject({ schemaVersion: z.number().int(), hexa: HexaVersion });

export const EpisodeJobData = z.object({
  schemaVersion: z.literal(JOB_SCHEMA_VERSION),
  hexa: HexaVersion,
  /** The run's id: a job id is `<run>/<episode id>`, so runs sharing a queue never collide. */
  run: z.string().min(1),
  /** The run's resolved config as data, API keys removed: a worker's keys come from its own environment. */
  config: z.record(z.string(), z.unknown()),
  episode: z.object({
    id: z.string().min(1),
    phase: Phase,
    level: z.string().min(1),
    round: z.number().int().min(0),
    seed: z.number().int(),
    agent: z.enum(RUN_AGENTS),
    bankRound: z.number().int().min(0).nullable(),
    allowance: z.number().int().min(0).optional(),
  }),
  bank: z.object({ skills: z.array(Skill), mistakes: z.array(Mistake), lessons: z.array(Lesson).max(LESSONS_MAX).optional() }),
  /** The run's spend cap when it has one: the worker's gate then counts in the run's ledger (spend-ledger.ts), whose cap is the coordinator's latest. */
  budget: Budget.optional(),
});
export type EpisodeJobData = z.infer<typeof EpisodeJobData>;

export const EpisodeJobResult = z.object({
  schemaVersion: z.literal(JOB_SCHEMA_VERSION),
  trajectory: Trajectory,
  retrieved: z.array(z.string()),
  /** The episode's model calls, recorded by the coordinator when it records the episode. */
  usage: z.array(UsageLine),
  worker: z.string(),
  /** What the coordinator keeps in the run for the episode's replay (LevelFamily.records.recordingEpisode); the family checks it. */
  kept: z.unknown().optional(),
});
export type EpisodeJobResult = z.infer<typeof EpisodeJobResult>;

/** What a worker stores as a job's progress when a spend cap stops its episode: the calls it made, for the run's usage.jsonl. */
export const StoppedProgress = z.object({ stoppedUsage: z.array(UsageLine) });

/** A job failed by a spend cap (BudgetExceeded on the worker): the coordinator stops the run for its budget; a resume retries it. */
export const budgetStopped = (failedReason: string): boolean => failedReason.startsWith("stopped: budget");

/** BullMQ refuses ':' in custom job ids; run ids and episode ids never hold one, and this keeps it so. */
export const jobIdOf = (run: string, id: string): string => `${run}/${id}`.replaceAll(":", "_");

const versionLabel = (v: HexaVersion): string => (v.commit ? `${v.version} (commit ${v.commit.slice(0, 12)})` : v.version);

/** Why a worker must refuse a job of this header, or null: another job schema, another hexa version or commit. */
export const refusal = (jobId: string, head: unknown, self: HexaVersion): string | null => {
  const h = JobHeader.safeParse(head);
  if (!h.success) return `job ${jobId}: not a hexa job (no schemaVersion/hexa header); was it queued by another program?`;
  const fix = "run the same hexa version on the coordinator and every worker";
  if (h.data.schemaVersion !== JOB_SCHEMA_VERSION)
    return `job ${jobId}: job schema version ${h.data.schemaVersion} from hexa ${versionLabel(h.data.hexa)}; this worker (hexa ${versionLabel(self)}) reads version ${JOB_SCHEMA_VERSION}; ${fix}`;
  const other = h.data.hexa.version !== self.version || (h.data.hexa.commit !== null && self.commit !== null && h.data.hexa.commit !== self.commit);
  return other ? `job ${jobId}: queued by hexa ${versionLabel(h.data.hexa)}; this worker is hexa ${versionLabel(self)}; ${fix}` : null;
};
