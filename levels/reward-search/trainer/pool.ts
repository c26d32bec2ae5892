import { mkdirSync, writeFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join, resolve } from "node:path";
import { writeJsonAtomic } from "../../../src/store/jsonl.ts";
import { TrainCache } from "./cache.ts";
import { cachedResultProblem } from "./cache-check.ts";
import { fitnessRangeOf } from "./result-check.ts";
import { startTrainer, type JobOutcome, type JobProgress, type StartOptions, type TrainerClient, type TrainJob } from "./client.ts";
import type { HelloMessage, JobBudget } from "./protocol.ts";

/**
 * Trainer processes, one per free core by default, with a queue of jobs in front. Every job is isolated: it
 * gets its own directory (its reward code, its request, the trainer's policy and its result live there and
 * nowhere else) and its reward code travels inside its own train message — no shared reward file that a
 * sibling could overwrite (RF-Agent's flaw). An optional cache answers a repeated job without a trainer.
 */

/** A job as the pool takes it: the directory is the pool's to assign. */
export type PoolJob = Omit<TrainJob, "jobDir">;

export interface PoolTrainOptions {
  onProgress?: (p: JobProgress) => void;
  signal?: AbortSignal;
  budget?: JobBudget;
  /** A readable prefix for the job's directory name (e.g. the candidate's id). */
  label?: string;
}

export type PoolOutcome = JobOutcome & { cached: boolean; jobDir: string | null };

export interface TrainerPool {
  train(job: PoolJob, opts?: PoolTrainOptions): Promise<PoolOutcome>;
  /** The trainer's hello (starts one trainer if none runs yet). */
  hello(): Promise<HelloMessage>;
  /** Train messages sent to trainers so far (cache hits send none). */
  readonly sent: number;
  close(): Promise<void>;
}

export interface PoolOptions extends Pick<StartOptions, "command" | "onLog" | "startTimeoutMs" | "cancelGraceMs" | "env" | "maxLineBytes" | "deadline"> {
  /** Where job directories go: `<jobsDir>/<label>-<n>`. */
  jobsDir: string;
  size?: number;
  /** Directory of the result cache; unset: no cache. */
  cacheDir?: string;
  /** Default budget of every job (a job's own budget fields win). */
  budget?: JobBudget;
}

const warn = (line: string) => void process.stderr.write(`${line}\n`);

const defaultPoolSize = (): number => Math.max(1, availableParallelism());

export const createTrainerPool = (opts: PoolOptions): TrainerPool => {
  const size = opts.size ?? defaultPoolSize();
  const jobsDir = resolve(opts.jobsDir);
  const cache = opts.cacheDir ? new TrainCache(opts.cacheDir) : null;
  const idle: TrainerClient[] = [];
  const waiting: Array<(c: TrainerClient | null) => void> = [];
  let live = 0;
  let sent = 0;
  let seq = 0;
  /** A directory nobody else has: mkdir without `recursive` fails if it exists (another pool, an earlier run). */
  const freshDir = (parent: string, stem: string): string => {
    mkdirSync(parent, { recursive: true });
    for (;;) {
      const dir = join(parent, `${stem}-${++seq}`);
      try {
        mkdirSync(dir);
        return dir;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== "EEXIST") throw e;
      }
    }
  };
  let closed = false;
  let firstHello: Promise<HelloMessage> | null = null;
  const all = new Set<TrainerClient>();

  const spawn = async (): Promise<TrainerClient> => {
    live++;
    try {
      const c = await startTrainer(opts);
      all.add(c);
      return c;
    } catch (e) {
      live--;
      waiting.shift()?.(null);
      throw e;
    }
  };

  const acquire = async (): Promise<TrainerClient> => {
    if (closed) throw new Error("the trainer pool is closed");
    const c = idle.pop();
    if (c) return c;
    if (live < size) return spawn();
    const got = await new Promise<TrainerClient | null>((r) => waiting.push(r));
    return got ?? acquire();
  };

  const release = (c: TrainerClient) => {
    if (c.failure || closed) {
      all.delete(c);
      live--;
      void c.close();
      waiting.shift()?.(null);
      return;
    }
    const w = waiting.shift();
    if (w) w(c);
    else idle.push(c);
  };

  const hello = () => {
    firstHello ??= (async () => {
      const c = await acquire();
      release(c);
      return c.hello;
    })();
    firstHello.catch(() => (firstHello = null));
    return firstHello;
  };

  const train = async (job: PoolJob, topts: PoolTrainOptions = {}): Promise<PoolOutcome> => {
    const h = await hello();
    const identity = h.trainer;
    if (cache) {
      const hit = cache.get({ ...job, jobDir: "" }, identity);
      const problem = hit?.kind === "result" ? cachedResultProblem(job, hit.result, fitnessRangeOf(job.task, h)) : null;
      if (problem) (opts.onLog ?? warn)(`warning: trainer cache ${cache.dir}: the entry for this ${job.task} job is not served (${problem}); training again`);
      else if (hit) return { ...hit, cached: true, jobDir: null };
    }
    const label = (topts.label ?? job.task).replace(/[^A-Za-z0-9_.-]/g, "_").slice(0, 60);
    const jobDir = freshDir(jobsDir, `${label}-${process.pid}`);
    writeFileSync(join(jobDir, "reward.js"), job.reward);
    writeJsonAtomic(join(jobDir, "request.json"), { ...job, jobDir, trainer: identity });
    const full: TrainJob = { ...job, jobDir };
    const budget = { ...opts.budget, ...topts.budget };
    const c = await acquire();
    let outcome: JobOutcome;
    try {
      sent++;
      outcome = await c.train(full, {
        ...(topts.onProgress ? { onProgress: topts.onProgress } : {}),
        ...(topts.signal ? { signal: topts.signal } : {}),
        ...(Object.keys(budget).length ? { budget } : {}),
      });
    } finally {
      release(c);
    }
    writeJsonAtomic(join(jobDir, "outcome.json"), outcome);
    cache?.put(full, identity, outcome);
    return { ...outcome, cached: false, jobDir };
  };

  const close = async () => {
    closed = true;
    waiting.splice(0).forEach((w) => w(null));
    idle.length = 0;
    await Promise.all([...all].map((c) => c.close()));
    all.clear();
  };

  return {
    train,
    hello,
    get sent() {
      return sent;
    },
    close,
  };
};
