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

/**
 * Takes the lock file `path` for this process by exclusive create, writing the pid; returns its release. A lock
 * left by a process that is gone is taken over; one held by a live process is a ConfigError with `inUse(pid)`.
 */
export const takePidLock = (path: string, inUse: (pid: number) => string): (() => void) => {
  for (let attempt = 0; ; attempt++) {
    try {
      const fd = openSync(path, "wx");
      writeFileSync(fd, `${process.pid}\n`);
      closeSync(fd);
      return () => rmSync(path, { force: true });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== "EEXIST" || attempt > 0) throw e;
    }
    const pid = Number(readFileSync(path, "utf8").trim());
    // Our own pid in the lock is a lock from an earlier life of this pid (a container restarts as pid 1).
    if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && alive(pid)) throw new ConfigError(inUse(pid));
    rmSync(path, { force: true });
  }
};
