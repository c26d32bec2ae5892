import { closeSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { ConfigError } from "../errors.ts";

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
};

/** The pid a lock file names; undefined when the file is gone or names none. */
const holderOf = (path: string): number | undefined => {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw e;
  }
  const pid = Number(text.trim());
  return Number.isInteger(pid) && pid > 0 ? pid : undefined;
};

/** Creates the lock file with this pid by exclusive create; false when it exists. */
const create = (path: string): boolean => {
  let fd: number;
  try {
    fd = openSync(path, "wx");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw e;
  }
  writeFileSync(fd, `${process.pid}\n`);
  closeSync(fd);
  return true;
};

/**
 * Takes the lock file `path` for this process by exclusive create, writing the pid; returns its release. A lock
 * left by a process that is gone is taken over; one held by a live process is a ConfigError with
 * `inUse("process PID")`. Two processes taking over the same stale lock race: the one whose create comes second
 * gets `inUse` with the winner (its pid, or "another process" while the winner has yet to write it).
 */
export const takePidLock = (path: string, inUse: (holder: string) => string): (() => void) => {
  const release = () => rmSync(path, { force: true });
  if (create(path)) return release;
  const stale = holderOf(path);
  // Our own pid in the lock is a lock from an earlier life of this pid (a container restarts as pid 1).
  if (stale !== undefined && stale !== process.pid && alive(stale)) throw new ConfigError(inUse(`process ${stale}`));
  rmSync(path, { force: true });
  if (create(path)) return release;
  const winner = holderOf(path);
  throw new ConfigError(inUse(winner === undefined || winner === process.pid ? "another process" : `process ${winner}`));
};
