import { hostname } from "node:os";
import { UnrecoverableError, Worker, type Job, type JobJson } from "bullmq";
import { Redis } from "ioredis";
import { ConfigError } from "../../errors.ts";
import { BudgetExceeded } from "../../llm/budget.ts";
import type { RedisConnection } from "./connection.ts";
import { signatureProblem, signResult } from "./job-signature.ts";
import { DEFAULT_MAX_JOB_AGE_MS, jobAgeProblem } from "./job-age.ts";
import { queueName, refusal, type HexaVersion } from "./jobs.ts";
import { HEARTBEAT_MS, WORKERS_KEY, type WorkerBeat } from "./registry.ts";

/** A job's work: the job's data → its result (`progress` reaches the coordinator). A ConfigError or BudgetExceeded fails the job without retries. */
export type JobHandler = (data: unknown, jobId: string, progress: (p: object) => Promise<void>) => Promise<unknown>;

export interface WorkerOptions {
  connection: RedisConnection;
  hexa: HexaVersion;
  /** The key jobs must be signed with (job-signature.ts); unset: only unsigned jobs are taken (a Redis on this machine). */
  jobKey?: string;
  /** The oldest signed job taken (job-age.ts); unset: DEFAULT_MAX_JOB_AGE_MS. */
  maxJobAgeMs?: number;
  /** Jobs run at once, per queue. */
  concurrency: number;
  handlers: Record<string, JobHandler>;
  /** How long a job's lock lasts without renewal; a dead worker's job is taken over after about this long. */
  lockMs: number;
  /** How often workers look for jobs whose lock expired. */
  stalledMs: number;
  log: (line: string) => void;
}

export interface RunningWorker {
  name: string;
  /** Stops taking jobs, lets those in flight finish (or, with `force`, drops them: they are taken over), then disconnects. */
  close(force?: boolean): Promise<void>;
}

/** What the worker's heartbeat reports, kept as its jobs run. */
interface WorkerStats {
  startedAt: number;
  /** The jobs running now, by job id. */
  active: Map<string, { queue: string; since: number }>;
  /** When jobs completed, oldest first; trimmed to the last minute at each beat. */
  done: number[];
  completed: number;
  failed: number;
}

/**
 * The largest job data a worker parses, in bytes of its JSON as Redis holds it. An episode job is its run's config
 * and one bank (at most a few hundred kB); a training job, reward code. A larger job is refused from its size,
 * before JSON.parse would build it, signed or not. BullMQ's fetch still reads the data whole as one string: a 100 MB
 * job refused here peaked a worker at about 0.4 GB, against 0.9 GB when it was parsed before its signature was checked.
 */
const MAX_JOB_BYTES = 8 * 1024 * 1024;

/** The jobs made without their data for their size, with that size: their processor refuses them. */
const oversized = new WeakMap<Job, number>();

/** A BullMQ worker that measures a job's data before parsing it: a job over MAX_JOB_BYTES is made with no data. */
class SizeBoundWorker extends Worker {
  protected override createJob(raw: JobJson, jobId: string): Job {
    const bytes = Buffer.byteLength(raw.data ?? "");
    if (bytes <= MAX_JOB_BYTES) return super.createJob(raw, jobId);
    const job = super.createJob({ ...raw, data: "{}" }, jobId);
    oversized.set(job, bytes);
    return job;
  }
}

/** Why a job's size refuses it, or null. */
const sizeProblem = (jobId: string, bytes: number | undefined): string | null =>
  bytes === undefined
    ? null
    : `job ${jobId}: the job's data is ${(bytes / 1024 / 1024).toFixed(1)} MB, over the ${MAX_JOB_BYTES / 1024 / 1024} MB a job may be; refused before it was read (no coordinator queues such a job)`;

/**
 * Runs one job of queue `kind`: refused without retries unless signed with the job key, young enough and of
 * this hexa version; a ConfigError or BudgetExceeded of the handler fails it without retries.
 */
const jobProcessor = (o: WorkerOptions, name: string, stats: WorkerStats, kind: string, handler: JobHandler) => async (job: Job) => {
  const id = job.id ?? "?";
  // Checked before anything of the job is read: a job without the shared key's signature was not queued by a coordinator.
  const why =
    sizeProblem(id, oversized.get(job)) ??
    signatureProblem(o.jobKey, kind, id, job.data) ??
    (o.jobKey ? jobAgeProblem(id, job.data, o.maxJobAgeMs ?? DEFAULT_MAX_JOB_AGE_MS) : null) ??
    refusal(id, job.data, o.hexa);
  if (why) throw new UnrecoverableError(why);
  stats.active.set(id, { queue: kind, since: Date.now() });
  o.log(`${kind} job ${id} started (attempt ${job.attemptsMade + 1})`);
  try {
    // The result is signed too: nobody without the job key can answer a job in the coordinator's place.
    const result = await handler(job.data, id, (p) => job.updateProgress(p));
    return result !== null && typeof result === "object" ? signResult(o.jobKey, kind, id, result) : result;
  } catch (e) {
    // A spend cap's stop fails the job for this session only: the coordinator's resume retries it (coordinator.ts).
    if (e instanceof ConfigError || e instanceof BudgetExceeded) throw new UnrecoverableError(`${e.message} (on worker ${name})`);
    throw e;
  } finally {
    stats.active.delete(id);
  }
};

/** The BullMQ worker of one queue: its jobs' ends counted and logged, a Redis outage told once. */
const queueWorker = (o: WorkerOptions, name: string, stats: WorkerStats, kind: string, handler: JobHandler): Worker => {
  const w = new SizeBoundWorker(queueName(kind), jobProcessor(o, name, stats, kind, handler), {
    connection: o.connection,
    concurrency: o.concurrency,
    name,
    lockDuration: o.lockMs,
    stalledInterval: o.stalledMs,
    // A job stalls once per dead worker; three in a row means it kills its workers.
    maxStalledCount: 3,
  });
  w.on("completed", (job) => {
    stats.completed++;
    stats.done.push(Date.now());
    o.log(`${kind} job ${job.id} done`);
  });
  w.on("failed", (job, e) => {
    stats.failed++;
    o.log(`${kind} job ${job?.id ?? "?"} failed: ${e.message}`);
  });
  let down = false;
  w.on("error", (e) => {
    if (!down) o.log(`warning: Redis does not answer (${e.message}); waiting for it`);
    down = true;
  });
  w.on("ready", () => (down = false));
  return w;
};

interface Heartbeat {
  /** Beats no more. */
  stop(): void;
  /** Takes the worker out of the `hexa workers` table and disconnects. */
  leave(): Promise<void>;
}

/** Beats the worker's stats into the `hexa workers` table (registry.ts) now, then every HEARTBEAT_MS. */
const startHeartbeat = async (o: WorkerOptions, name: string, stats: WorkerStats): Promise<Heartbeat> => {
  const beats = new Redis(o.connection);
  beats.on("error", () => undefined);
  const beat = async () => {
    const now = Date.now();
    const { done } = stats;
    while (done.length && done[0]! < now - 60_000) done.shift();
    const b: WorkerBeat = {
      name,
      host: hostname(),
      pid: process.pid,
      queues: Object.keys(o.handlers),
      concurrency: o.concurrency,
      startedAt: stats.startedAt,
      at: now,
      completed: stats.completed,
      failed: stats.failed,
      lastMinute: done.length,
      active: [...stats.active].map(([id, a]) => ({ id, queue: a.queue, since: a.since })),
    };
    await beats.hset(WORKERS_KEY, name, JSON.stringify(b));
  };
  await beat();
  const timer = setInterval(() => void beat().catch(() => undefined), HEARTBEAT_MS);
  return {
    stop: () => clearInterval(timer),
    leave: async () => {
      await beats.hdel(WORKERS_KEY, name).catch(() => undefined);
      beats.disconnect();
    },
  };
};

/**
 * A `hexa worker` (docs/ARCHITECTURE.md §7): one BullMQ worker per queue it serves, each running `concurrency` jobs at once.
 * Deterministic failures (a job without the job key's signature, a job of another hexa version, a bad config, a
 * key this machine lacks, a command, path or endpoint the job may not choose, the run's spend cap) fail the job
 * without retries; anything else is retried by BullMQ, and a worker that dies mid-job loses its lock, so the
 * stalled-job check hands the job to another worker. It beats into the `hexa workers` table every second.
 */
export const startWorker = async (o: WorkerOptions): Promise<RunningWorker> => {
  const name = `${hostname()}-${process.pid}`;
  const stats: WorkerStats = { startedAt: Date.now(), active: new Map(), done: [], completed: 0, failed: 0 };
  const workers = Object.entries(o.handlers).map(([kind, handler]) => queueWorker(o, name, stats, kind, handler));
  await Promise.all(workers.map((w) => w.waitUntilReady()));
  const heartbeat = await startHeartbeat(o, name, stats);
  return {
    name,
    close: async (force = false) => {
      heartbeat.stop();
      await Promise.allSettled(workers.map((w) => w.close(force)));
      await heartbeat.leave();
    },
  };
};
