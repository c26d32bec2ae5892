import { cpSync, existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { RunDir } from "../../src/store/run-dir.ts";
import { tempDirs } from "../support/temp-files.ts";

/**
 * Two `hexa run --resume DIR` started at once after the run's process was killed: both find its lock stale and
 * take it over. The race is played deterministically, at the instant this process moves the stale lock aside:
 * the other process's lock appears just after it (this process must lose), or had replaced the stale one just
 * before it (this process must put the winner's lock back, not remove it).
 */

const race = vi.hoisted(() => ({
  beforeSetAside: undefined as ((path: string) => void) | undefined,
  afterSetAside: undefined as ((path: string) => void) | undefined,
}));
vi.mock("node:fs", async (importOriginal) => {
  const fs = await importOriginal<typeof import("node:fs")>();
  const renameSync: typeof fs.renameSync = (from, to) => {
    race.beforeSetAside?.(String(from));
    race.beforeSetAside = undefined;
    fs.renameSync(from, to);
    race.afterSetAside?.(String(from));
    race.afterSetAside = undefined;
  };
  return { ...fs, renameSync, default: { ...fs, renameSync } };
});

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

afterEach(() => {
  race.beforeSetAside = undefined;
  race.afterSetAside = undefined;
});

const inUseBy = (dir: RunDir, holder: string) =>
  expect.objectContaining({
    name: "ConfigError",
    message: `${dir.path}: in use by ${holder}; wait for it or stop it before resuming (delete ${dir.file("lock")} if that process is not hexa)`,
  });

describe("a stale run lock taken by two processes at once", () => {
  it("the loser is told the run is in use by the winner, not a raw EEXIST", () => {
    const dir = staleRun();
    const lock = dir.file("lock");
    // The winner (here: this test's parent, a live process) creates its lock right after the stale one is moved aside.
    race.afterSetAside = (path) => {
      if (path === lock) writeFileSync(lock, `${process.ppid}\n`, { flag: "wx" });
    };
    expect(() => dir.lock()).toThrow(inUseBy(dir, `process ${process.ppid}`));
    expect(readFileSync(lock, "utf8")).toBe(`${process.ppid}\n`);
  });

  it("a winner that took the stale lock first keeps its lock: it is put back, and this process is told", () => {
    const dir = staleRun();
    const lock = dir.file("lock");
    race.beforeSetAside = (path) => {
      if (path === lock) writeFileSync(lock, `${process.ppid}\n`);
    };
    expect(() => dir.lock()).toThrow(inUseBy(dir, `process ${process.ppid}`));
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
