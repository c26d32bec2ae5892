/**
 * How many rounds a level may run ahead of the slowest one (docs/ARCHITECTURE.md §4). The files are written in a
 * sequential run's order (ordered-writes.ts), so what a level does ahead of the slowest waits: its finished
 * episodes in the held/ spool (held-work.ts), which a resume takes; its bank updates in memory, which a process
 * killed outright (kill -9) loses and a resume redoes. Two rounds absorb the spread of episode times between
 * levels while bounding that memory and that loss.
 */
export const MAX_ROUNDS_AHEAD = 2;

/** Holds a level's next round until the slowest level is close enough behind. */
export class RunAhead {
  private readonly finished: Map<string, number>;
  private waiting: { ready: () => boolean; go: () => void }[] = [];

  constructor(levels: readonly string[]) {
    this.finished = new Map(levels.map((l) => [l, -1] as const));
  }

  /** The level's update of `round` is committed (or was, in an earlier process). */
  finish(level: string, round: number): void {
    this.finished.set(level, round);
    this.wake();
  }

  /** Resolves once a level may start `round` (every level has finished round − 1 − MAX_ROUNDS_AHEAD), or once `released()`. */
  until(round: number, released: () => boolean): Promise<void> {
    const ready = () => released() || Math.min(...this.finished.values()) >= round - 1 - MAX_ROUNDS_AHEAD;
    if (ready()) return Promise.resolve();
    return new Promise((go) => this.waiting.push({ ready, go }));
  }

  /** Lets through every waiting level that may go now (also after a stop, when `released` turns true). */
  wake(): void {
    const go = this.waiting.filter((w) => w.ready());
    this.waiting = this.waiting.filter((w) => !w.ready());
    go.forEach((w) => w.go());
  }
}
