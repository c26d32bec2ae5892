import { randomBytes } from "node:crypto";
import { linkSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { ConfigError } from "../errors.ts";

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
};

const codeOf = (e: unknown): string | undefined => (e as NodeJS.ErrnoException).code;

/** The pid a lock file names; undefined when the file is gone or names none. */
const holderOf = (path: string): number | undefined => {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    if (codeOf(e) === "ENOENT") return undefined;
    throw e;
  }
  const pid = Number(text.trim());
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
};

const uniqueBeside = (path: string, what: string): string => `${path}.${what}-${process.pid}-${randomBytes(4).toString("hex")}`;

/**
 * Creates the lock file holding this pid; false when it exists. The pid is written to a file of our own first and
 * linked into place, so a lock is never seen without its pid.
 */
const create = (path: string): boolean => {
  const mine = uniqueBeside(path, "new");
  writeFileSync(mine, `${process.pid}\n`);
  try {
    linkSync(mine, path);
    return true;
  } catch (e) {
    if (codeOf(e) === "EEXIST") return false;
    throw e;
  } finally {
    rmSync(mine, { force: true });
  }
};

/** How a lock is moved aside: fs.renameSync, or a test's wrapper that plays another process around the move. */
type Rename = (from: string, to: string) => void;

/** Moves the lock at `path` aside (one process wins a rename); its new name, or undefined when it was gone. */
const setAside = (path: string, rename: Rename): string | undefined => {
  const aside = uniqueBeside(path, "stale");
  try {
    rename(path, aside);
    return aside;
  } catch (e) {
    if (codeOf(e) === "ENOENT") return undefined;
    throw e;
  }
};

const holderLabel = (pid: number | undefined): string => (pid === undefined || pid === process.pid ? "another process" : `process ${pid}`);

/**
 * Takes the lock file `path` for this process, writing the pid; returns its release. A lock left by a process that
 * is gone is taken over; one held by a live process is a ConfigError with `inUse("process PID")`. Two processes
 * taking over the same stale lock race: each moves the lock aside by rename, and one that finds it moved a live
 * winner's lock instead of the stale one puts it back; the loser gets `inUse` naming the winner.
 */
export const takePidLock = (path: string, inUse: (holder: string) => string, rename: Rename = renameSync): (() => void) => {
  const release = () => {
    if (holderOf(path) === process.pid) rmSync(path, { force: true });
  };
  if (create(path)) return release;
  const stale = holderOf(path);
  // Our own pid in the lock is a lock from an earlier life of this pid (a container restarts as pid 1).
  if (stale !== undefined && stale !== process.pid && alive(stale)) throw new ConfigError(inUse(`process ${stale}`));
  const aside = setAside(path, rename);
  if (aside !== undefined) {
    const moved = holderOf(aside);
    if (moved !== undefined && moved !== stale && moved !== process.pid && alive(moved)) {
      try {
        linkSync(aside, path);
      } finally {
        rmSync(aside, { force: true });
      }
      throw new ConfigError(inUse(`process ${moved}`));
    }
    rmSync(aside, { force: true });
  }
  if (create(path)) return release;
  throw new ConfigError(inUse(holderLabel(holderOf(path))));
};
