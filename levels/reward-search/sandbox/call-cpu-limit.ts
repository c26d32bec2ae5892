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
 * paused, spends wall time and no CPU. Calls shorter than one period never read the CPU clock; after the first
 * read, wall time is compared first (a thread's CPU time never exceeds it) and the clock is read only past the limit.
 */
export class CallCpuLimit {
  private limitMs = Infinity;
  private wallStart = 0;
  private cpuStart = -1;

  constructor(private readonly clocks: CallClocks = SYSTEM_CLOCKS) {}

  start(limitMs: number): void {
    this.limitMs = limitMs;
    this.wallStart = this.clocks.wallMs();
    this.cpuStart = -1;
  }

  stop(): void {
    this.limitMs = Infinity;
  }

  /** Whether the running call is over its limit (false outside a call). */
  exceeded(): boolean {
    if (this.limitMs === Infinity) return false;
    if (this.cpuStart < 0) {
      this.cpuStart = this.clocks.threadCpuMicros();
      return false;
    }
    if (this.clocks.wallMs() - this.wallStart <= this.limitMs) return false;
    return (this.clocks.threadCpuMicros() - this.cpuStart) / 1000 > this.limitMs;
  }
}
