import { cpSync, existsSync, readFileSync, writeFileSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { RunDir } from "../../src/store/run-dir.ts";
import { tempDirs } from "../support/temp-files.ts";

/**
 * Two `hexa run --resume DIR` started at once after the run's process was killed: both find its lock stale and
 * take it over. The race is played deterministically: the other process's lock appears in the instant between
 * this process removing the stale lock and creating its own.
 */

const race = vi.hoisted(() => ({ afterRemove: undefined as ((path: string) => void) | undefined }));
vi.mock("node:fs", async (importOriginal) => {
  const fs = await importOriginal<typeof import("node:fs")>();
  const rmSync: typeof fs.rmSync = (path, options) => {
    fs.rmSync(path, options);
    race.afterRemove?.(String(path));
  };
  return { ...fs, rmSync, default: { ...fs, rmSync } };
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
  race.afterRemove = undefined;
});

describe("a stale run lock taken by two processes at once", () => {
  it("the loser is told the run is in use by the winner, not a raw EEXIST", () => {
    const dir = staleRun();
    const lock = dir.file("lock");
    // The winner (here: this test's parent, a live process) creates its lock right after the stale one is removed.
    race.afterRemove = (path) => {
      if (path === lock) writeFileSync(lock, `${process.ppid}\n`, { flag: "wx" });
      race.afterRemove = undefined;
    };
    expect(() => dir.lock()).toThrow(
      expect.objectContaining({
        name: "ConfigError",
        message: `${dir.path}: in use by process ${process.ppid}; wait for it or stop it before resuming (delete ${lock} if that process is not hexa)`,
      }),
    );
  });

  it("a winner that has not yet written its pid is 'another process'", () => {
    const dir = staleRun();
    const lock = dir.file("lock");
    race.afterRemove = (path) => {
      if (path === lock) writeFileSync(lock, "", { flag: "wx" });
      race.afterRemove = undefined;
    };
    expect(() => dir.lock()).toThrow(
      expect.objectContaining({ name: "ConfigError", message: expect.stringMatching(/: in use by another process; wait for it/) }),
    );
  });

  it("with no race, the stale lock is taken over by this process", () => {
    const dir = staleRun();
    const release = dir.lock();
    expect(readFileSync(dir.file("lock"), "utf8")).toBe(`${process.pid}\n`);
    release();
    expect(existsSync(dir.file("lock"))).toBe(false);
  });
});
