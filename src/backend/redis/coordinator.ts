import { Queue, QueueEvents, type Job } from "bullmq";
import { ConfigError } from "../../errors.ts";
import { BudgetExceeded, type Budget } from "../../llm/budget.ts";
import type { EpisodeBackend, EpisodeJob } from "../../loop/episode-backend.ts";
import type { UsageLine } from "../../store/run-records.ts";
import { redisLabel, withTimeout, type RedisConnection } from "./connection.ts";
import { resultSignatureProblem, signJob } from "./job-signature.ts";
import { episodeResultProblem, type EpisodeFacts } from "./episode-result.ts";
import {
  budgetStopped,
  EpisodeJobResult,
  JOB_SCHEMA_VERSION,
  jobIdOf,
  EPISODES,
  queueName,
  StoppedProgress,
  type EpisodeJobData,
  type HexaVersion,
} from "./jobs.ts";

export interface RedisBackendOptions {
  connection: RedisConnection;
  /** The run's id (job ids are `<run>/<episode id>`). */
  run: string;
  /** The run's resolved config as data, its secret fields already removed (secret-fields.ts): it is stored in Redis. */
  config: Record<string, unknown>;
  /** The key every job and every result is signed with (job-signature.ts); unset: unsigned (a Redis on this machine only). */
  jobKey?: string;
  /** What a worker's result must agree with to be recorded (episode-result.ts). */
  results: EpisodeFacts;
  hexa: HexaVersion;
  log?: (line: string) => void;
  /** How often jobs in flight are checked for having vanished (a Redis restarted without persistence). */
  checkMs?: number;
  /** How long Redis may take to answer at the start. */
  connectMs?: number;
  /** The run's spend cap, when it has one: every job carries it, and the workers' gates count in the run's ledger. */
  budget?: Budget;
  /**
   * A call of an episode a spend cap stopped in an earlier session, found on a resume: the ledger this session
   * started from usage.jsonl has not counted it (the loop records it in usage.jsonl too).
   */
  charge?: (line: UsageLine) => Promise<void>;
}

/** Retries of a job that failed by a crash; a deterministic failure (UnrecoverableError) is never retried. */
const ATTEMPTS = 3;
/** Results of one episode refused before the run stops for it: each refused one is dropped and the job queued again for an honest worker. */
const REFUSALS = 3;
/** Finished jobs are kept a day: a coordinator killed between a job's end and its record finds the result on resume. */
const KEEP = { age: 24 * 3600 };

type OnUsage = Parameters<EpisodeBackend["play"]>[1];

/** The episode queue and its event stream; `link.down` is set while Redis does not answer, and cleared by a check that got through. */
interface EpisodeQueue {
  queue: Queue;
  events: QueueEvents;
  /** The Redis URL without its password, for messages. */
  where: string;
  link: { down: boolean };
}

const closeQueue = (q: Pick<EpisodeQueue, "queue" | "events">) => Promise.allSettled([q.events.close(), q.queue.close()]);

/** Opens the episode queue and its events, warning once per outage, and waits `connectMs` at most for Redis to answer. */
const connectEpisodeQueue = async (o: RedisBackendOptions): Promise<EpisodeQueue> => {
  const where = redisLabel(o.connection);
  const queue = new Queue(queueName(EPISODES), { connection: o.connection });
  const events = new QueueEvents(queueName(EPISODES), { connection: o.connection });
  // ioredis retries forever; without a listener each failed attempt would be an unhandled 'error'.
  const link = { down: false };
  const onError = (e: Error) => {
    if (!link.down) o.log?.(`warning: Redis at ${where} does not answer (${e.message}); waiting for it`);
    link.down = true;
  };
  queue.on("error", onError);
  events.on("error", onError);
  // Every job waited on listens for the queue's closing: a round holds as many as it has episodes.
  queue.setMaxListeners(0);
  events.setMaxListeners(0);
  try {
    await withTimeout(
      Promise.all([queue.waitUntilReady(), events.waitUntilReady()]),
      o.connectMs ?? 5000,
      () => `--backend ${where}: Redis does not answer; start redis-server there (see docs/guides/many-machines.md) or fix the URL`,
    );
  } catch (e) {
    // Not awaited: closing waits for a connection that never came; the process ends with the error.
    void closeQueue({ queue, events });
    throw e;
  }
  return { queue, events, where, link };
};

const addEpisodeJob = (queue: Queue, jobId: string, data: EpisodeJobData) =>
  queue.add("episode", data, { jobId, attempts: ATTEMPTS, backoff: { type: "fixed", delay: 1000 }, removeOnComplete: KEEP, removeOnFail: KEEP });

/**
 * Every `checkMs`, one check at a time: each job in flight (`pending`, by job id) that Redis no longer knows (a
 * restart without persistence) is queued again, and an idle queue says that no worker is connected.
 */
const watchPendingJobs = (q: EpisodeQueue, pending: Map<string, EpisodeJobData>, o: RedisBackendOptions): NodeJS.Timeout => {
  let warnedIdle = false;
  const check = async () => {
    if (!pending.size) return;
    q.link.down = false;
    for (const [jobId, data] of pending) {
      if ((await q.queue.getJobState(jobId)) !== "unknown" || !pending.has(jobId)) continue;
      o.log?.(`job ${jobId} is no longer in Redis (restarted?); queued again`);
      await addEpisodeJob(q.queue, jobId, data);
    }
    const workers = await q.queue.getWorkersCount();
    if (workers === 0 && !warnedIdle) o.log?.(`waiting for workers: none is connected to ${q.where}; start one with hexa worker --redis ${q.where}`);
    warnedIdle = workers === 0;
  };
  let checking = false;
  const watch = setInterval(() => {
    if (checking) return;
    checking = true;
    check()
      .catch(() => undefined)
      .finally(() => (checking = false));
  }, o.checkMs ?? 5000);
  watch.unref();
  return watch;
};

/** The calls a spend cap's stop cut short on a worker (its job's progress), taken once: the progress is cleared. */
const stoppedUsage = async (queue: Queue, jobId: string): Promise<UsageLine[]> => {
  const stored = await queue.getJob(jobId);
  const p = StoppedProgress.safeParse(stored?.progress);
  if (!stored || !p.success) return [];
  await stored.updateProgress({});
  return p.data.stoppedUsage;
};

/** The job of one episode, signed: the episode, its bank, the run's config and its spend cap. */
const episodeJobData = (o: RedisBackendOptions, jobId: string, job: EpisodeJob): EpisodeJobData => {
  // An EpisodeJob is the job's episode and its bank (a Bank is {skills, mistakes} and, if it has any, lessons).
  const { bank, ...episode } = job;
  return signJob(o.jobKey, EPISODES, jobId, {
    schemaVersion: JOB_SCHEMA_VERSION,
    hexa: o.hexa,
    run: o.run,
    config: o.config,
    episode,
    bank,
    ...(o.budget ? { budget: o.budget } : {}),
  });
};

/**
 * Queues the job (a no-op while Redis holds it) and makes one an earlier session left behind this session's:
 * its data (this session's cap), and, when it failed, its stopped calls charged and the job run again.
 */
const queueEpisodeJob = async (queue: Queue, o: RedisBackendOptions, jobId: string, data: EpisodeJobData, onUsage: OnUsage): Promise<Job> => {
  const queued: Job = await addEpisodeJob(queue, jobId, data);
  const state = await queued.getState();
  if (state === "failed") {
    // A spend cap stopped it in an earlier session: its calls join usage.jsonl (and this session's ledger) now.
    for (const line of await stoppedUsage(queue, jobId)) {
      onUsage(line);
      if (!line.fromCache) await o.charge?.(line);
    }
  }
  // A job queued by an earlier session carries that session's cap; it is played under this one's.
  if (state === "failed" || state === "waiting" || state === "delayed" || state === "prioritized") await queued.updateData(data);
  // A job that failed before (a key missing on the workers, since fixed; a spend cap, since raised) is run again by a resume.
  if (state === "failed") await queued.retry("failed");
  return queued;
};

/** The job's return value once a worker finished it; a failure is the run's spend cap (BudgetExceeded) or a ConfigError. */
const finishedValue = async (q: EpisodeQueue, queued: Job, job: EpisodeJob, jobId: string, onUsage: OnUsage): Promise<unknown> => {
  try {
    return await queued.waitUntilFinished(q.events);
  } catch (e) {
    const why = (e as Error).message;
    if (budgetStopped(why)) {
      for (const line of await stoppedUsage(q.queue, jobId)) onUsage(line);
      throw new BudgetExceeded(why);
    }
    throw new ConfigError(`${job.id}: a worker failed the episode (${why}); the episode was not recorded`);
  }
};

/**
 * Why a worker's result cannot be recorded as the episode of `job`, or the result: signed with the job key (when
 * set), an episode of this job schema, of the job's level and seed, and one that can be true (episode-result.ts);
 * what the family keeps of it beside the records is kept then.
 */
const checkedResult = (o: RedisBackendOptions, jobId: string, job: EpisodeJob, value: unknown): EpisodeJobResult | string => {
  const unsigned = resultSignatureProblem(o.jobKey, EPISODES, jobId, value);
  if (unsigned) return unsigned;
  const result = EpisodeJobResult.safeParse(value);
  if (!result.success) {
    const i = result.error.issues[0]!;
    return `${i.path.join(".") || "(result)"}: ${i.message}; not an episode of job schema ${JOB_SCHEMA_VERSION} (run the same hexa version on the coordinator and every worker)`;
  }
  const { level, seed } = result.data.trajectory;
  if (level !== job.level || seed !== job.seed)
    return `an episode of level ${JSON.stringify(level)} seed ${seed}, not of the job's level ${JSON.stringify(job.level)} seed ${job.seed}`;
  const problem = episodeResultProblem(job, result.data, o.results);
  if (problem) return problem;
  // Only a result that can be the episode's leaves what its replay needs in the run (docs/guides/verify.md).
  return o.results.family.records?.keepFromWorker({ level: job.level, seed: job.seed }, result.data.kept) ?? result.data;
};

/**
 * Episodes played by `hexa worker` processes through a BullMQ queue (docs/ARCHITECTURE.md §7). The job id is the episode's,
 * so adding a job again (a resumed coordinator, a vanished job) is a no-op while Redis holds it and a
 * finished result is read back instead of played again. Jobs in flight are checked every `checkMs`: one that
 * Redis no longer knows (a restart without persistence) is queued again.
 */
export const openRedisEpisodes = async (o: RedisBackendOptions): Promise<EpisodeBackend> => {
  const q = await connectEpisodeQueue(o);
  const pending = new Map<string, EpisodeJobData>();
  const watch = watchPendingJobs(q, pending, o);
  const close = async () => {
    clearInterval(watch);
    await closeQueue(q);
  };
  const play = async (job: EpisodeJob, onUsage: OnUsage) => {
    const jobId = jobIdOf(o.run, job.id);
    try {
      for (let refused = 1; ; refused++) {
        // Signed afresh each time it is queued: a job queued again after a refused result is young again.
        const data = episodeJobData(o, jobId, job);
        pending.set(jobId, data);
        const queued = await queueEpisodeJob(q.queue, o, jobId, data, onUsage);
        const result = checkedResult(o, jobId, job, await finishedValue(q, queued, job, jobId, onUsage));
        if (typeof result !== "string") {
          for (const line of result.usage) onUsage(line);
          return { trajectory: result.trajectory, retrieved: result.retrieved };
        }
        if (refused >= REFUSALS)
          throw new ConfigError(`${job.id}: a worker's result was refused (${result}), ${REFUSALS} times; the episode was not recorded (docs/security.md)`);
        o.log?.(`warning: ${job.id}: a worker's result was refused (${result}); nothing of it is recorded, and the job is queued again`);
        // A removal that fails leaves the refused result in place: the next round of this loop refuses it again.
        await queued.remove().catch(() => undefined);
      }
    } finally {
      pending.delete(jobId);
    }
  };
  // Every episode of a round is queued at once: the workers' concurrency is the limit.
  return { play, inFlight: 100_000, close };
};
