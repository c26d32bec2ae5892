import { cpSync, existsSync, readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { takePidLock } from "../../src/store/pid-lock.ts";
import { RunDir } from "../../src/store/run-dir.ts";
import { tempDirs } from "../support/temp-files.ts";

/**
 * Two `hexa run --resume DIR` started at once after the run's process was killed: both find its lock stale and
 * take it over. The race is played deterministically, at the instant this process moves the stale lock aside:
 * the other process's lock appears just after it (this process must lose), or had replaced the stale one just
 * before it (this process must put the winner's lock back, not remove it). The other process plays its part
 * inside the rename that takePidLock moves the lock aside with.
 */

const FIXTURE = resolve(import.meta.dirname, "..", "fixtures", "run-v1", "v1-fixture__heuristic-off2on-evolving-heuristic-evolver__s0__20261203T062826Z");
const tmp = tempDirs("hexa-hostile-lock-");
/** A pid no process has (above Linux's pid_max): the lock of a killed run. */
const DEAD_PID = 2147483646;

const staleRun = (): RunDir => {
  const path = join(tmp(), basename(FIXTURE));
  cpSync(FIXTURE, path, { recursive: true });
  const dir = RunDir.open(path);
  writeFileSync(dir.file("lock"), `${DEAD_PID}\n`);
  return dir;
};

/** A rename that lets the other process act just before or just after the lock at `lock` is moved aside. */
const racedRename =
  (lock: string, other: { before?: () => void; after?: () => void }) =>
  (from: string, to: string): void => {
    if (from === lock) other.before?.();
    renameSync(from, to);
    if (from === lock) other.after?.();
  };

/** Takes the run's lock as RunDir.lock does, moving a stale lock aside with `rename`. */
const lockWith = (dir: RunDir, rename: (from: string, to: string) => void) => takePidLock(dir.file("lock"), (holder) => `in use by ${holder}`, rename);
const inUseBy = (holder: string) => expect.objectContaining({ name: "ConfigError", message: `in use by ${holder}` });

describe("a stale run lock taken by two processes at once", () => {
  it("the loser is told the run is in use by the winner, not a raw EEXIST", () => {
    const dir = staleRun();
    const lock = dir.file("lock");
    // The winner (here: this test's parent, a live process) creates its lock right after the stale one is moved aside.
    const rename = racedRename(lock, { after: () => writeFileSync(lock, `${process.ppid}\n`, { flag: "wx" }) });
    expect(() => lockWith(dir, rename)).toThrow(inUseBy(`process ${process.ppid}`));
    expect(readFileSync(lock, "utf8")).toBe(`${process.ppid}\n`);
  });

  it("a winner that took the stale lock first keeps its lock: it is put back, and this process is told", () => {
    const dir = staleRun();
    const lock = dir.file("lock");
    const rename = racedRename(lock, { before: () => writeFileSync(lock, `${process.ppid}\n`) });
    expect(() => lockWith(dir, rename)).toThrow(inUseBy(`process ${process.ppid}`));
    expect(readFileSync(lock, "utf8")).toBe(`${process.ppid}\n`);
    expect(readdirSync(dirname(lock)).filter((f) => f.startsWith("lock."))).toEqual([]);
  });

  it("with no race, the stale lock is taken over by this process", () => {
    const dir = staleRun();
    const release = dir.lock();
    expect(readFileSync(dir.file("lock"), "utf8")).toBe(`${process.pid}\n`);
    release();
    expect(existsSync(dir.file("lock"))).toBe(false);
  });
});
