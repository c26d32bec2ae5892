/**
 * What this process and the processes it started (the headless chromium that renders frames) use, from /proc:
 * the peak resident memory of the whole tree, sampled every `everyMs` (Node's own peak, process.resourceUsage()
 * .maxRSS, leaves its children out), and CPU seconds, Node's own plus its ended children's. Linux only; elsewhere
 * both report null.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";

const PAGE_BYTES = 4096;

/** pid → [parent pid, resident bytes] for every process /proc lists now. */
const processes = (): Map<number, [number, number]> => {
  const out = new Map<number, [number, number]>();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      // Fields after the command name (which may hold spaces) start at its closing parenthesis.
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      out.set(Number(name), [Number(fields[1]), Number(fields[21]) * PAGE_BYTES]);
    } catch {
      // The process ended between the listing and the read.
    }
  }
  return out;
};

/** Resident bytes of `root` and its descendants now. */
export const treeBytes = (root: number = process.pid): number => {
  const all = processes();
  const children = new Map<number, number[]>();
  for (const [pid, [ppid]] of all) children.set(ppid, [...(children.get(ppid) ?? []), pid]);
  let total = 0;
  const todo = [root];
  while (todo.length > 0) {
    const pid = todo.pop()!;
    total += all.get(pid)?.[1] ?? 0;
    todo.push(...(children.get(pid) ?? []));
  }
  return total;
};

/** Starts sampling; `stop` gives the largest total seen (null where /proc is missing). */
export const sampleTreeMemory = (everyMs = 100): { stop: () => number | null } => {
  if (!existsSync("/proc/self/stat")) return { stop: () => null };
  let peak = treeBytes();
  const timer = setInterval(() => {
    peak = Math.max(peak, treeBytes());
  }, everyMs);
  return {
    stop: () => {
      clearInterval(timer);
      return Math.max(peak, treeBytes());
    },
  };
};

/** Clock ticks a second in /proc's CPU fields (USER_HZ, 100 on Linux). */
const TICKS = 100;

/** CPU seconds: this process's own, and its children's that ended and were waited for (/proc/self/stat cutime + cstime). */
export const cpuSeconds = (): { own: number; children: number | null } => {
  const u = process.cpuUsage();
  const own = (u.user + u.system) / 1e6;
  if (!existsSync("/proc/self/stat")) return { own, children: null };
  const stat = readFileSync("/proc/self/stat", "utf8");
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return { own, children: (Number(fields[13]) + Number(fields[14])) / TICKS };
};
