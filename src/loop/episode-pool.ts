/** Where an episode sits in the run: what the pool orders waiting episodes by. */
export interface PoolSlot {
  level: string;
  round: number;
  /** Its place in the level's round (0 for the first seed). */
  index: number;
}

/**
 * The waiting episode to start next: longest expected first (its level's expected episode time), ties broken by
 * the level's place in the config, then round, then place in the round, so the order never depends on timing.
 */
export const nextSlot = (waiting: readonly PoolSlot[], expectedMs: (level: string) => number, levels: readonly string[]): number => {
  const keyOf = (s: PoolSlot) => [-expectedMs(s.level), levels.indexOf(s.level), s.round, s.index];
  const before = (a: number[], b: number[]) => {
    const k = a.findIndex((v, i) => v !== b[i]);
    return k >= 0 && a[k]! < b[k]!;
  };
  const keys = waiting.map(keyOf);
  return keys.reduce((best, key, i) => (before(key, keys[best]!) ? i : best), 0);
};

interface Waiting extends PoolSlot {
  start: () => void;
}

/**
 * The run's episodes of every level share one pool of `limit` in flight (docs/ARCHITECTURE.md §4): a level's next
 * round queues here as soon as its update is done, and a freed place goes to the waiting episode `nextSlot` picks.
 * Places are handed out after a turn of the event loop, so a signal is seen between synchronous episodes and
 * episodes queued together are ordered together.
 */
export class EpisodePool {
  private readonly waiting: Waiting[] = [];
  private running = 0;
  private scheduled = false;
  private idleWaiters: (() => void)[] = [];

  constructor(
    private readonly limit: number,
    private readonly expectedMs: (level: string) => number,
    private readonly levels: readonly string[],
  ) {}

  /** Runs `work` once a place is free and it is picked; settles as `work` does. */
  run<T>(slot: PoolSlot, work: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const start = () => {
        this.running++;
        work()
          .then(resolve, reject)
          .finally(() => {
            this.running--;
            this.schedule();
          });
      };
      this.waiting.push({ ...slot, start });
      this.schedule();
    });
  }

  /** Resolves once nothing runs or waits. */
  idle(): Promise<void> {
    if (this.running === 0 && this.waiting.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      while (this.running < this.limit && this.waiting.length) {
        const [next] = this.waiting.splice(nextSlot(this.waiting, this.expectedMs, this.levels), 1);
        next!.start();
      }
      if (this.running === 0 && this.waiting.length === 0) this.idleWaiters.splice(0).forEach((r) => r());
    });
  }
}
