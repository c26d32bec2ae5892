import { openSync, readSync } from "node:fs";
import process from "node:process";

type CpuUsage = { user: number; system: number };

const SCHEDSTAT = "/proc/thread-self/schedstat";
const scratch = Buffer.alloc(64);
/** Kept open per thread that reads it: one read at offset 0 per sample, and no descriptor to run out of. */
let schedstatFd: number | undefined;

/** Nanoseconds on CPU of the thread that reads the file (its first field); a sync read runs on the calling thread. */
const schedstatNs = (): number => {
  schedstatFd ??= openSync(SCHEDSTAT, "r");
  const n = readSync(schedstatFd, scratch, 0, scratch.length, 0);
  return Number.parseInt(scratch.toString("latin1", 0, n), 10);
};

const usageMicros = (u: CpuUsage) => u.user + u.system;
const processMicros = () => usageMicros(process.cpuUsage());

/**
 * Whether `clock` (µs) moves while this thread spins (up to 200 ms of wall time): a kernel without schedstats prints
 * zeros, and a clock that stands still would never stop an endless loop. A working one moves within a tick.
 */
const movesWithThisThread = (clock: () => number): boolean => {
  const c0 = clock();
  if (!Number.isFinite(c0)) return false;
  const t0 = performance.now();
  while (performance.now() - t0 < 200) {
    const c = clock();
    if (!Number.isFinite(c)) return false;
    if (c > c0) return true;
  }
  return false;
};

function pickClock(): () => number {
  const threadCpuUsage = (process as { threadCpuUsage?: () => CpuUsage }).threadCpuUsage;
  const candidates: (() => number)[] = [];
  if (typeof threadCpuUsage === "function") candidates.push(() => usageMicros(threadCpuUsage.call(process)));
  candidates.push(() => schedstatNs() / 1000);
  for (const clock of candidates) {
    try {
      if (movesWithThisThread(clock)) return clock;
    } catch {
      // not Linux, or no schedstat: the next clock
    }
  }
  return processMicros;
}

let picked: (() => number) | undefined;

/**
 * The calling thread's CPU time in µs, for the sandbox's per-call limit (call-cpu-limit.ts, docs/spec/reward-search.md
 * §4): a reward call is charged only for the thread that runs it, so V8's background threads (GC, wasm tier-up),
 * other workers and a loaded machine do not time out honest code. process.threadCpuUsage where Node has it (≥ 23.9);
 * on Linux /proc/thread-self/schedstat (a few µs a read; updated at scheduler ticks, so a few ms coarse); else, or
 * when that clock does not move while this thread spins (checked once, at the first use: a tick's spin),
 * process.cpuUsage, which counts every thread of the process and so may stop a call early when other threads are busy.
 */
export const threadCpuMicros = (): number => {
  picked ??= pickClock();
  return picked();
};
