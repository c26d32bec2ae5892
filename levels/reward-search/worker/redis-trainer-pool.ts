import { createHash } from "node:crypto";
import { type Job, Queue, QueueEvents } from "bullmq";
import { z } from "zod";
import { ConfigError, InvariantError } from "../../../src/errors.ts";
import type { JobProgress } from "../trainer/client.ts";
import type { PoolJob, PoolOutcome, PoolTrainOptions, TrainerPool } from "../trainer/pool.ts";
import { HelloMessage } from "../trainer/protocol.ts";
import { redisLabel, type RedisConnection } from "../../../src/backend/redis/connection.ts";
import { type HexaVersion, JOB_SCHEMA_VERSION, queueName } from "../../../src/family/job-envelope.ts";
import { TRAININGS, type TrainingJobData } from "./training-job.ts";
import { checkRemoteOutcome } from "./remote-outcome.ts";
import { keepRemotePolicies } from "./kept-policies.ts";
import { recordRemoteOutcome } from "./recorded-outcome.ts";
import { InFlight } from "../../../src/util/in-flight.ts";

/** What a training job hands back: the pool's outcome (jobDir is on the worker's machine) or the trainer's hello. */
const TrainingResult = z.union([z.object({ hello: HelloMessage }), z.object({ outcome: z.unknown(), worker: z.string(), policies: z.unknown().optional() })]);
type JobAnswer = z.infer<typeof TrainingResult> & { jobId: string };
/** A job's answer; `readBack`: Redis held it finished already (the same training asked before), so nothing was trained now. */
type TrainingAnswer = JobAnswer & { readBack: boolean };

export interface RedisTrainerOptions {
  connection: RedisConnection;
  hexa: HexaVersion;
  trainer: Record<string, unknown>;
  /** Signs a job with the worker's job key (docs/security.md). */
  sign: <T extends object>(kind: string, jobId: string, data: T) => T;
  /** Why a result must be refused for its signature (not the job key's; docs/security.md), or null. */
  resultProblem: (kind: string, jobId: string, result: unknown) => string | null;
  /** Where the policies a job keeps (`keepPolicies`) are written when they come back; unset: such a job is refused. */
  jobsDir?: string;
  /**
   * The coordinator's trainer cache, where each answer is recorded as a local pool records its trainings (a search's
   * replay reads them there; recorded-outcome.ts); unset (an episode on a worker, which hands its trainings back): none.
   */
  recordIn?: string;
  log?: (line: string) => void;
}

type TrainingsQueue = { queue: Queue; events: QueueEvents };

/**
 * The job id: a hash of what the job asks, so that the same training asked twice is one job. A job that needs the
 * loss summary is another job than one that does not (the finished one Redis holds may lack it).
 */
const trainingJobId = (data: TrainingJobData): string =>
  `training-${createHash("sha256")
    .update(
      JSON.stringify([
        data.kind,
        data.trainer,
        "job" in data ? data.job : null,
        "budget" in data ? data.budget : null,
        ...("needsLosses" in data && data.needsLosses ? ["needsLosses"] : []),
      ]),
    )
    .digest("hex")
    .slice(0, 32)}`;

const connectTrainingsQueue = (o: RedisTrainerOptions): TrainingsQueue => {
  const queue = new Queue(queueName(TRAININGS), { connection: o.connection });
  const events = new QueueEvents(queueName(TRAININGS), { connection: o.connection });
  queue.on("error", () => undefined);
  events.on("error", () => undefined);
  queue.setMaxListeners(0);
  events.setMaxListeners(0);
  return { queue, events };
};

/** Waits until the queue is ready, and says so when no worker serves trainings yet. */
const awaitTrainingsQueue = async ({ queue, events }: TrainingsQueue, o: RedisTrainerOptions): Promise<void> => {
  await Promise.all([queue.waitUntilReady(), events.waitUntilReady()]);
  if ((await queue.getWorkersCount()) === 0)
    o.log?.(`waiting for trainings: no worker on ${redisLabel(o.connection)} serves them; start one with hexa worker --queues trainings`);
};

/** Adds the signed job (or finds the one Redis holds under its id), retrying it if it had failed. */
const addTrainingJob = async (queue: Queue, data: TrainingJobData, jobId: string, o: RedisTrainerOptions): Promise<Job> => {
  const job = await queue.add(data.kind, o.sign(TRAININGS, jobId, data), {
    jobId,
    attempts: 3,
    backoff: { type: "fixed", delay: 1000 },
    removeOnComplete: { age: 3600 },
    removeOnFail: { age: 3600 },
  });
  if ((await job.getState()) === "failed") await job.retry("failed");
  return job;
};

/** The job's finish, or the signal's reason once it aborts. */
const finishOrAbort = (job: Job, events: QueueEvents, signal: AbortSignal | undefined): Promise<unknown> =>
  signal
    ? Promise.race([
        job.waitUntilFinished(events),
        new Promise<never>((_, fail) => signal.addEventListener("abort", () => fail(signal.reason), { once: true })),
      ])
    : job.waitUntilFinished(events);

/** Waits for a job's answer, forwarding its progress; a worker's failure or an unreadable answer is a ConfigError. */
const awaitTraining = async (
  job: Job,
  jobId: string,
  o: Pick<RedisTrainerOptions, "resultProblem">,
  events: QueueEvents,
  onProgress?: (p: JobProgress) => void,
  signal?: AbortSignal,
): Promise<JobAnswer> => {
  const progress = ({ jobId: id, data: p }: { jobId: string; data: unknown }) => {
    if (id === jobId && p && typeof p === "object") onProgress?.(p as JobProgress);
  };
  if (onProgress) events.on("progress", progress);
  try {
    const answer = await finishOrAbort(job, events, signal);
    const unsigned = o.resultProblem(TRAININGS, jobId, answer);
    if (unsigned) throw new ConfigError(`training ${unsigned}; the result was not recorded`);
    const parsed = TrainingResult.safeParse(answer);
    if (!parsed.success)
      throw new ConfigError(
        `training job ${jobId}: a worker's result is not a training of job schema ${JOB_SCHEMA_VERSION}; run the same hexa version on the coordinator and every worker`,
      );
    return { ...parsed.data, jobId };
  } catch (e) {
    if (e instanceof ConfigError || signal?.aborted) throw e;
    throw new ConfigError(`training job ${jobId}: a worker failed it (${(e as Error).message})`);
  } finally {
    events.off("progress", progress);
  }
};

/** The trainings queue, opened on first use: sends a job and waits for its answer. */
class TrainingsOnRedis {
  private opened: TrainingsQueue | undefined;

  constructor(private readonly o: RedisTrainerOptions) {}

  async run(data: TrainingJobData, onProgress?: (p: JobProgress) => void, signal?: AbortSignal): Promise<TrainingAnswer> {
    const { queue, events } = await this.open();
    const jobId = trainingJobId(data);
    const readBack = (await queue.getJobState(jobId)) === "completed";
    const job = await addTrainingJob(queue, data, jobId, this.o);
    return { ...(await awaitTraining(job, jobId, this.o, events, onProgress, signal)), readBack };
  }

  async close(): Promise<void> {
    if (this.opened) await Promise.allSettled([this.opened.events.close(), this.opened.queue.close()]);
    this.opened = undefined;
  }

  private async open(): Promise<TrainingsQueue> {
    if (!this.opened) {
      this.opened = connectTrainingsQueue(this.o);
      await awaitTrainingsQueue(this.opened, this.o);
    }
    return this.opened;
  }
}

/** A checked result with the policies its worker kept, written into a job folder of the lead's own (kept-policies.ts). */
const withKeptPolicies = (
  r: { jobId: string; worker: string; policies?: unknown },
  job: PoolJob,
  checked: PoolOutcome & { kind: "result" },
  jobsDir: string,
  label?: string,
): PoolOutcome => {
  const kept = keepRemotePolicies(r.jobId, job, checked.result, r.policies, { worker: r.worker, jobsDir, ...(label ? { label } : {}) });
  return { ...checked, result: kept.result, jobDir: kept.jobDir };
};

/**
 * Trainings run by `hexa worker` processes that serve the trainings queue (docs/ARCHITECTURE.md §7), behind the same port
 * as the local pool. The job id is a hash of the job: a training asked for twice while Redis holds it (two
 * episodes, or a job rerun after its worker died) is trained once and read back. A cancel (signal) stops the
 * wait here; the training finishes on its worker and lands in its cache.
 */
export const redisTrainerPool = (o: RedisTrainerOptions): TrainerPool => {
  const trainings = new TrainingsOnRedis(o);
  let sent = 0;
  let hello: Promise<HelloMessage> | undefined;
  const helloOf = () => {
    hello ??= trainings
      .run({ schemaVersion: JOB_SCHEMA_VERSION, hexa: o.hexa, kind: "hello", trainer: o.trainer })
      .then((r) => ("hello" in r ? r.hello : Promise.reject(new ConfigError("a worker answered a hello job with a training"))));
    hello.catch(() => (hello = undefined));
    return hello;
  };
  /** The trainings this pool waits for, by job id: the same training asked again shares the wait (as a local pool does). */
  const waiting = new InFlight<PoolOutcome>();

  const train = async (job: PoolJob, opts: PoolTrainOptions = {}): Promise<PoolOutcome> => {
    if (job.keepPolicies && o.jobsDir === undefined)
      throw new InvariantError("a Redis trainer pool without a jobs folder was asked to keep a training's policies");
    // The task's F range may come from the trainer's hello (a task of the trainer's own).
    const told = await helloOf();
    const data: TrainingJobData = {
      schemaVersion: JOB_SCHEMA_VERSION,
      hexa: o.hexa,
      kind: "train",
      trainer: o.trainer,
      job,
      ...(opts.budget ? { budget: opts.budget } : {}),
      ...(opts.label ? { label: opts.label } : {}),
      ...(opts.needsLosses ? { needsLosses: true } : {}),
    };
    // A job that keeps its policies writes them in its own folder: it waits for its own answer.
    if (job.keepPolicies) return trainOnRedis(data, job, opts, told);
    const id = trainingJobId(data);
    const running = waiting.running(id);
    // The first one's failure (its caller's abort) is not this job's: it asks on its own.
    const first = running && (await running);
    if (first) return { ...first, cached: true, shared: true };
    return waiting.start(id, trainOnRedis(data, job, opts, told));
  };

  const trainOnRedis = async (data: TrainingJobData, job: PoolJob, opts: PoolTrainOptions, told: HelloMessage): Promise<PoolOutcome> => {
    sent++;
    const r = await trainings.run(data, opts.onProgress, opts.signal);
    if (!("outcome" in r)) throw new ConfigError("a worker answered a training job with a hello");
    const checked = checkRemoteOutcome(r.jobId, job, r.outcome, r.worker, told, opts.needsLosses === true);
    const outcome = job.keepPolicies && checked.kind === "result" ? withKeptPolicies(r, job, checked, o.jobsDir!, opts.label) : checked;
    // As a local pool says of a training its cache answered: this exact training ran before (docs/guides/verify.md).
    const answered = r.readBack ? { ...outcome, cached: true } : outcome;
    const entry = o.recordIn === undefined ? undefined : recordRemoteOutcome(o.recordIn, job, told.trainer, answered);
    return entry === undefined ? answered : { ...answered, entry };
  };
  return {
    hello: helloOf,
    train,
    get sent() {
      return sent;
    },
    close: () => trainings.close(),
  };
};
