import { mkdirSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { ConfigError } from "../errors.ts";
import { takePidLock } from "../store/pid-lock.ts";
import { ATOMIC_TEMP } from "../util/write-atomic.ts";

/** The lock file a `hexa search` holds in its directory while it runs. */
export const SEARCH_LOCK = "search.lock";

/** How deep under a search's directory a killed process's temporary files are looked for (trainings/, judgments/<checkpoint>/…). */
const TEMP_DEPTH = 3;

/** A search directory held by this process, and the temporary files a killed process had left in it. */
export interface SearchHold {
  release: () => void;
  removed: string[];
}

/** writeAtomic's leftovers at or under `dir`: no link followed, no dot folder (a trainer's jobs and cache) entered. */
const temporaryFiles = (dir: string, depth: number): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((d) => {
    const path = join(dir, d.name);
    if (d.isFile() && ATOMIC_TEMP.test(d.name)) return [path];
    return d.isDirectory() && !d.name.startsWith(".") && depth > 0 ? temporaryFiles(path, depth - 1) : [];
  });

/**
 * Takes the search in `dir` for this process, so that no second process trains, judges or plans it at the same
 * time, and removes the temporary files a process killed between a write and its rename left there (none can be
 * another live writer's: the lock is ours). `busy` names the live process that holds it instead.
 */
export const holdSearchDir = (dir: string): SearchHold | { busy: string } => {
  mkdirSync(dir, { recursive: true });
  let busy: string | undefined;
  let release: () => void;
  try {
    release = takePidLock(join(dir, SEARCH_LOCK), (holder) => {
      busy = holder;
      return `${dir}: another hexa search (${holder}) is running this search`;
    });
  } catch (e) {
    if (busy !== undefined && e instanceof ConfigError) return { busy };
    throw e;
  }
  const removed = temporaryFiles(dir, TEMP_DEPTH);
  for (const path of removed) rmSync(path, { force: true });
  return { release, removed };
};
