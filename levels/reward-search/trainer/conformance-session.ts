import { join } from "node:path";
import { startTrainer, type TrainerClient, type TrainJob } from "./client.ts";
import type { ConformanceOptions } from "./conformance.ts";
import type { HelloMessage } from "./protocol.ts";

/** What `hexa trainer check` (conformance.ts) shares between its checks: the trainer, its hello, the jobs. */

const VALID_REWARD = `function reward(obs, action, nextObs, info) {
  const alive = 1;
  return { total: alive, components: { alive } };
}`;

/** The training seed of every check's job. */
export const SEED = 1000;
export const EVAL_SEEDS = [1001, 1002, 1003];

/** A check's own failure: its message is the check's detail (no stack). */
export class CheckFailed extends Error {}

export const expect = (cond: unknown, what: string): void => {
  if (!cond) throw new CheckFailed(what);
};

export const withTimeout = <T>(p: Promise<T>, ms: number, what: string): Promise<T> =>
  new Promise<T>((res, rej) => {
    const t = setTimeout(() => rej(new CheckFailed(`${what}: no answer within ${ms} ms`)), ms);
    p.then(
      (v) => (clearTimeout(t), res(v)),
      (e) => (clearTimeout(t), rej(e)),
    );
  });

type SessionOptions = Pick<ConformanceOptions, "command" | "task" | "steps" | "reward" | "onLog">;

/**
 * The trainer under check, started on first use and again after it failed (a later check still runs on a
 * live trainer); a start that failed once is not retried. Every job gets its own directory under `root`.
 */
export class CheckSession {
  private client: TrainerClient | null = null;
  private firstHello: HelloMessage | null = null;
  private startError: Error | null = null;
  private jobs = 0;

  constructor(
    private readonly opts: SessionOptions,
    private readonly root: string,
    private readonly startTimeoutMs: number,
    /** How long the tiny job may take. */
    readonly jobTimeoutMs: number,
  ) {}

  /** The first hello the trainer sent (after `ensure`). */
  get hello(): HelloMessage {
    return this.firstHello!;
  }

  /** A live trainer: the current one, or a new one if there is none or it failed. */
  async ensure(): Promise<TrainerClient> {
    if (this.client && !this.client.failure) return this.client;
    if (this.startError) throw new CheckFailed(`the trainer did not start: ${this.startError.message}`);
    const { command, onLog } = this.opts;
    try {
      this.client = await startTrainer({
        ...(command ? { command } : {}),
        startTimeoutMs: this.startTimeoutMs,
        cancelGraceMs: 10_000,
        ...(onLog ? { onLog } : {}),
      });
      this.firstHello ??= this.client.hello;
      return this.client;
    } catch (e) {
      this.startError = e as Error;
      throw new CheckFailed(`the trainer did not start: ${(e as Error).message}`);
    }
  }

  /** The task of the training checks: the one asked for, else cartpole when served, else the first served. */
  task(): string {
    const ids = this.hello.tasks.map((t) => t.id);
    const id = this.opts.task ?? (ids.includes("cartpole") ? "cartpole" : ids[0]!);
    expect(ids.includes(id), `task ${id} is not among the served tasks (${ids.join(", ")})`);
    return id;
  }

  /** The tiny training job, with `over` changing what a check is about. */
  job(over: Partial<TrainJob> = {}): TrainJob {
    return {
      task: this.task(),
      instance: 0,
      reward: this.opts.reward ?? VALID_REWARD,
      steps: this.opts.steps ?? 2048,
      seed: SEED,
      evalSeeds: EVAL_SEEDS,
      jobDir: join(this.root, `job-${++this.jobs}`),
      ...over,
    };
  }

  /** Shut the trainer down if one was started. */
  async close(): Promise<void> {
    if (this.client) await this.client.close();
  }
}
