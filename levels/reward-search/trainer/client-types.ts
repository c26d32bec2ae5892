import { ConfigError } from "../../../src/errors.ts";
import type { DeadlineRule } from "./host-limits.ts";
import type { LossSummary } from "./loss-summary.ts";
import type { ErrorMessage, HelloMessage, JobBudget, ProgressMessage, ResultMessage, TrainMessage } from "./protocol.ts";

/** The types of the host side of the trainer protocol (client.ts); docs/trainer-protocol.md. */

export type TrainerFailure = "not_found" | "exited" | "protocol" | "version" | "timeout";

/** The trainer command cannot be used: the user must fix `trainer.command` (or the trainer). */
export class TrainerError extends ConfigError {
  constructor(
    readonly reason: TrainerFailure,
    message: string,
  ) {
    super(message);
  }
}

export type JobResult = Omit<ResultMessage, "type" | "id">;
export type JobError = Omit<ErrorMessage, "type" | "id">;
export type JobProgress = Omit<ProgressMessage, "type" | "id">;
/**
 * How one job ended: a result, or an error the caller can show (reward fault, unknown task, budget, cancel). A
 * result's `losses` is set by the pool (loss-summary.ts): null when the trainer reported none, absent when the
 * outcome was recorded without it (a cache entry of an older hexa).
 */
export type JobOutcome = { kind: "result"; result: JobResult; losses?: LossSummary | null } | { kind: "error"; error: JobError };

export type TrainJob = Omit<TrainMessage, "type" | "id" | "budget">;

export interface TrainOptions {
  onProgress?: (p: JobProgress) => void;
  signal?: AbortSignal;
  budget?: JobBudget;
  /** The id sent to the trainer (default: a fresh one per client). */
  id?: string;
}

export interface TrainerExit {
  code: number | null;
  signal: string | null;
  killed: boolean;
}

export interface TrainerClient {
  readonly command: readonly string[];
  readonly hello: HelloMessage;
  /** Milliseconds from spawn to a valid hello. */
  readonly startMs: number;
  /** Null while usable; the error that ended it otherwise. */
  readonly failure: TrainerError | null;
  train(job: TrainJob, opts?: TrainOptions): Promise<JobOutcome>;
  /** Sends `shutdown`, waits for the exit (killing it after a grace period). */
  close(): Promise<void>;
  /** How the process ended; `killed` when the host had to kill it. */
  readonly exit: Promise<TrainerExit>;
}

export interface StartOptions {
  command?: readonly string[];
  /** Milliseconds to wait for the hello. */
  startTimeoutMs?: number;
  /** Milliseconds a trainer has to answer a cancel before it is killed. */
  cancelGraceMs?: number;
  /** Each stderr line of the trainer (its logs). */
  onLog?: (line: string) => void;
  env?: Record<string, string>;
  /** The longest stdout or stderr line read (default MAX_TRAINER_LINE_BYTES); a longer stdout line fails the trainer. */
  maxLineBytes?: number;
  /** A job's deadline when its budget sets no wallMs (default: host-limits.ts). */
  deadline?: DeadlineRule;
}
