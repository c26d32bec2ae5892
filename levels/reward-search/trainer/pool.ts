import { mkdirSync, writeFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join, resolve } from "node:path";
import { writeJsonAtomic } from "../../../src/store/jsonl.ts";
import { TrainCache } from "./cache.ts";
import { cachedResultProblem } from "./cache-check.ts";
import { fitnessRangeOf } from "./result-check.ts";
import { summariseLosses } from "./loss-summary.ts";
import type { JobOutcome, JobProgress, StartOptions, TrainJob } from "./client.ts";
import type { TrainOptions } from "./client-types.ts";
import { TrainerProcesses } from "./trainer-processes.ts";
import type { HelloMessage, JobBudget } from "./protocol.ts";
import { checkServedTasks } from "./served-tasks.ts";
import { InFlight } from "../../../src/util/in-flight.ts";

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
  /**
   * The caller reads the result's loss summary (the p2p reviser's PPO diagnostics): a cache entry recorded without
   * one is trained again here, and refused by a replay, rather than answered with less than a training gives.
   */
  needsLosses?: boolean;
}

/**
 * A job's outcome as the pool gives it: whether the cache answered it, the job's directory when trained, and the
 * trainer cache entry that holds it (absent when no cache kept it: no cache, or an outcome not worth keeping).
 * `cached` also when a training of the same job was in flight when it was asked (`shared`: it is that training's
 * outcome, wall time included).
 */
export type PoolOutcome = JobOutcome & { cached: boolean; jobDir: string | null; entry?: string; shared?: true };

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

/** Makes directories under `parent` nobody else has: mkdir without `recursive` fails if it exists (another pool, an earlier run). */
const jobDirMaker = (parent: string) => {
  let seq = 0;
  return (stem: string): string => {
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
};

/** Why a cached result cannot answer this job, or null. */
const unservedBecause = (hit: JobOutcome, job: PoolJob, hello: HelloMessage, needsLosses: boolean): string | null => {
  if (hit.kind !== "result") return null;
  if (needsLosses && hit.losses === undefined) return "it keeps no summary of the training's PPO losses, which this search reads";
  return cachedResultProblem(job, hit.result, fitnessRangeOf(job.task, hello));
};

/** The cache's answer to a job, or null to train it; an entry that does not fit the job is warned about and not served. */
const cachedOutcome = (cache: TrainCache, job: PoolJob, hello: HelloMessage, topts: PoolTrainOptions, log: (line: string) => void): PoolOutcome | null => {
  const hit = cache.get({ ...job, jobDir: "" }, hello.trainer);
  const problem = hit ? unservedBecause(hit, job, hello, topts.needsLosses === true) : null;
  if (problem) log(`warning: trainer cache ${cache.dir}: the entry for this ${job.task} job is not served (${problem}); training again`);
  else if (hit) return { ...hit, cached: true, jobDir: null, entry: cache.entryPath({ ...job, jobDir: "" }, hello.trainer) };
  return null;
};

/** The job's directory name stem: its label (or task) made safe for a file name, and this process's id. */
const jobDirStem = (job: PoolJob, topts: PoolTrainOptions): string =>
  `${(topts.label ?? job.task).replace(/[^A-Za-z0-9_.-]/g, "_").slice(0, 60)}-${process.pid}`;

/** Writes the job's reward code and request into its own directory. */
const writeJobRequest = (jobDir: string, job: PoolJob, trainer: HelloMessage["trainer"]) => {
  writeFileSync(join(jobDir, "reward.js"), job.reward);
  writeJsonAtomic(join(jobDir, "request.json"), { ...job, jobDir, trainer });
};

/** The client's options for one job: only the fields that are set, the pool's budget under the job's own, and every loss line kept in `losses`. */
const clientTrainOptions = (topts: PoolTrainOptions, poolBudget: JobBudget | undefined, losses: Pick<JobProgress, "losses">[]): TrainOptions => {
  const budget = { ...poolBudget, ...topts.budget };
  return {
    onProgress: (p) => {
      if (p.losses) losses.push({ losses: p.losses });
      topts.onProgress?.(p);
    },
    ...(topts.signal ? { signal: topts.signal } : {}),
    ...(Object.keys(budget).length ? { budget } : {}),
  };
};

export const createTrainerPool = (opts: PoolOptions): TrainerPool => {
  const size = opts.size ?? defaultPoolSize();
  const newJobDir = jobDirMaker(resolve(opts.jobsDir));
  const cache = opts.cacheDir ? new TrainCache(opts.cacheDir) : null;
  const trainers = new TrainerProcesses(size, opts);
  let sent = 0;
  let firstHello: Promise<HelloMessage> | null = null;

  const hello = () => {
    firstHello ??= (async () => {
      const c = await trainers.acquire();
      trainers.release(c);
      return c.hello;
    })();
    firstHello.catch(() => (firstHello = null));
    return firstHello;
  };

  /** Trainings in flight by their cache entry: the same job asked again while one runs waits for that one. */
  const inFlight = new InFlight<PoolOutcome>();

  const train = async (job: PoolJob, topts: PoolTrainOptions = {}): Promise<PoolOutcome> => {
    const h = await hello();
    // A task the trainer does not serve is the setup's fault, not the candidate's: it ends the run, naming both.
    checkServedTasks([job.task], h);
    const hit = cache ? cachedOutcome(cache, job, h, topts, opts.onLog ?? warn) : null;
    if (hit) return hit;
    const entry = cache?.entryPath({ ...job, jobDir: "" }, h.trainer);
    if (entry === undefined) return trainNow(job, topts, h);
    const running = inFlight.running(entry);
    // The first one's failure (its caller's abort, a trainer that died) is not this job's: it trains on its own.
    const first = running && (await running);
    if (first && first.entry === entry) return { ...first, cached: true, jobDir: null, shared: true };
    return inFlight.start(entry, trainNow(job, topts, h));
  };

  const trainNow = async (job: PoolJob, topts: PoolTrainOptions, h: HelloMessage): Promise<PoolOutcome> => {
    const identity = h.trainer;
    const jobDir = newJobDir(jobDirStem(job, topts));
    writeJobRequest(jobDir, job, identity);
    const full: TrainJob = { ...job, jobDir };
    const losses: Pick<JobProgress, "losses">[] = [];
    const trainOptions = clientTrainOptions(topts, opts.budget, losses);
    const c = await trainers.acquire();
    let outcome: JobOutcome;
    try {
      sent++;
      outcome = await c.train(full, trainOptions);
    } finally {
      trainers.release(c);
    }
    // What a training reports does not depend on whether it ran now or comes from the cache: the losses are kept with it.
    if (outcome.kind === "result") outcome = { ...outcome, losses: summariseLosses(losses) };
    writeJsonAtomic(join(jobDir, "outcome.json"), outcome);
    const kept = cache?.put(full, identity, outcome) ? { entry: cache.entryPath(full, identity) } : {};
    return { ...outcome, cached: false, jobDir, ...kept };
  };

  return {
    train,
    hello,
    get sent() {
      return sent;
    },
    close: () => trainers.close(),
  };
};
