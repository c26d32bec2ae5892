import type { JobError, JobOutcome, TrainJob, TrainOptions } from "./client-types.ts";

/** A job sent to the trainer and not yet answered. */
export interface PendingJob {
  id: string;
  job: TrainJob;
  resolve(o: JobOutcome): void;
  reject(e: Error): void;
  opts: TrainOptions;
  timers: NodeJS.Timeout[];
  cleanup: Array<() => void>;
  /** Why the host stopped the job (budget, abort); the trainer's answer is then reported as this. */
  stopped: JobError | null;
}

const release = (p: PendingJob) => {
  p.timers.forEach(clearTimeout);
  p.cleanup.forEach((f) => f());
};

/** The jobs in flight on one trainer, the ids it has answered, and the callers waiting for a free slot. */
export class JobTable {
  readonly #pending = new Map<string, PendingJob>();
  readonly #finished = new Set<string>();
  readonly #waiting: Array<() => void> = [];

  get size(): number {
    return this.#pending.size;
  }

  ids(): string[] {
    return [...this.#pending.keys()];
  }

  get(id: string): PendingJob | undefined {
    return this.#pending.get(id);
  }

  isPending(id: string): boolean {
    return this.#pending.has(id);
  }

  /** An id the trainer answered (or the host stopped): a late answer to it is ignored. */
  wasFinished(id: string): boolean {
    return this.#finished.has(id);
  }

  add(p: PendingJob): void {
    this.#pending.set(p.id, p);
  }

  /** Resolves a job (as the host's stop reason when it stopped it) and frees its slot. */
  finish(p: PendingJob, outcome: JobOutcome): void {
    release(p);
    this.#pending.delete(p.id);
    this.#finished.add(p.id);
    p.resolve(p.stopped ? { kind: "error", error: p.stopped } : outcome);
    this.#waiting.shift()?.();
  }

  /** Fails every job in flight with the trainer's error and wakes every caller waiting for a slot. */
  rejectAll(e: Error): void {
    for (const p of this.#pending.values()) {
      release(p);
      p.reject(e);
    }
    this.#pending.clear();
    this.#waiting.splice(0).forEach((w) => w());
  }

  /** Waits until fewer than `concurrency` jobs are in flight, or the trainer has failed. */
  async slot(concurrency: number, failed: () => boolean): Promise<void> {
    while (!failed() && this.#pending.size >= concurrency) await new Promise<void>((r) => this.#waiting.push(r));
  }
}
