import { closeSync, openSync, readSync } from "node:fs";
import process from "node:process";

type CpuUsage = { user: number; system: number };

const SCHEDSTAT = "/proc/thread-self/schedstat";
const scratch = Buffer.alloc(64);

/** Nanoseconds on CPU of the thread that reads the file (its first field); a sync read runs on the calling thread. */
const schedstatNs = (): number => {
  const fd = openSync(SCHEDSTAT, "r");
  try {
    const n = readSync(fd, scratch, 0, scratch.length, 0);
    return Number.parseInt(scratch.toString("latin1", 0, n), 10);
  } finally {
    closeSync(fd);
  }
};

const usageMicros = (u: CpuUsage) => u.user + u.system;

function pickClock(): () => number {
  const threadCpuUsage = (process as { threadCpuUsage?: () => CpuUsage }).threadCpuUsage;
  if (typeof threadCpuUsage === "function") return () => usageMicros(threadCpuUsage.call(process));
  try {
    if (Number.isFinite(schedstatNs())) return () => schedstatNs() / 1000;
  } catch {
    // not Linux, or no schedstat: the process clock below
  }
  return () => usageMicros(process.cpuUsage());
}

/**
 * The calling thread's CPU time in µs, for the sandbox's per-call limit (reward-sandbox.ts, docs/spec/reward-search.md
 * §4): a reward call is charged only for the thread that runs it, so V8's background threads (GC, wasm tier-up),
 * other workers and a loaded machine do not time out honest code. process.threadCpuUsage where Node has it (≥ 23.9);
 * on Linux /proc/thread-self/schedstat (one open-read-close, about 10 µs; the sandbox reads it at a call's first poll
 * and then only once the call's wall time passes its limit); elsewhere process.cpuUsage, which counts every thread
 * of the process and so may stop a call early when other threads are busy.
 */
export const threadCpuMicros: () => number = pickClock();
