import { threadCpuMicros } from "./thread-cpu.ts";

export interface CallClocks {
  /** Wall time, ms. */
  wallMs: () => number;
  /** The calling thread's CPU time, µs. */
  threadCpuMicros: () => number;
}

const SYSTEM_CLOCKS: CallClocks = { wallMs: () => performance.now(), threadCpuMicros };

/**
 * The CPU limit of one sandbox call, asked by QuickJS's interrupt handler every few thousand operations
 * (reward-sandbox.ts, docs/spec/reward-search.md §4). A call is stopped once the calling thread has spent more
 * than the limit on it, counted from the handler's first run in the call: the CPU before that (one polling period)
 * is not counted, and no wall time stands in for it, since a thread that waits for a core, or a process that is
 * paused, spends wall time and no CPU. A thread's CPU never grows faster than wall time, so after each reading the
 * clock is not read again until wall time has moved by what is left of the limit: a call within one limit's wall
 * time reads it once, and a waiting one a few times, never at every poll.
 */
export class CallCpuLimit {
  private limitMs = Infinity;
  private cpuStart = -1;
  /** Wall time (ms) before which the call cannot have passed its limit. */
  private nextReadMs = 0;

  constructor(private readonly clocks: CallClocks = SYSTEM_CLOCKS) {}

  start(limitMs: number): void {
    this.limitMs = limitMs;
    this.cpuStart = -1;
  }

  stop(): void {
    this.limitMs = Infinity;
  }

  /** Whether the running call is over its limit (false outside a call). */
  exceeded(): boolean {
    if (this.limitMs === Infinity) return false;
    const wall = this.clocks.wallMs();
    if (this.cpuStart < 0) {
      this.cpuStart = this.clocks.threadCpuMicros();
      this.nextReadMs = wall + this.limitMs;
      return false;
    }
    if (wall < this.nextReadMs) return false;
    const usedMs = (this.clocks.threadCpuMicros() - this.cpuStart) / 1000;
    if (usedMs > this.limitMs) return true;
    this.nextReadMs = wall + (this.limitMs - usedMs);
    return false;
  }
}
