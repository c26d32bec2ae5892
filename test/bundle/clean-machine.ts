import { spawn } from "node:child_process";
import { cpSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { expect } from "vitest";
import { hexa, ROOT, type Out } from "../support/hexa-cli.ts";

/**
 * `hexa ARGS` as on another machine: started from `cwd` (default: a fresh empty folder), with only PATH in its
 * environment and a HOME of its own, so no cache, config or key of this machine's can answer for it.
 */
export const hexaElsewhere = (args: readonly string[], cwd?: string): Promise<Out & { cwd: string; home: string }> => {
  const here = cwd ?? mkdtempSync(join(tmpdir(), "hexa-elsewhere-cwd-"));
  const home = mkdtempSync(join(tmpdir(), "hexa-elsewhere-home-"));
  const child = spawn(process.execPath, [join(ROOT, "bin/hexa.js"), ...args], {
    cwd: here,
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (d: string) => (stdout += d));
  child.stderr.setEncoding("utf8").on("data", (d: string) => (stderr += d));
  return new Promise((ok, fail) => {
    child.once("error", fail);
    child.once("close", (status, signal) => ok({ status, signal, stdout, stderr, cwd: here, home }));
  });
};

/** The names in a folder (what a command left there). */
export const namesIn = (dir: string): string[] => readdirSync(dir).sort();

/** `hexa verify BUNDLE` elsewhere: identical as `what` says, leaving its folder and HOME empty; the trainings it checked. */
export const verifiesElsewhere = async (bundle: string, what: RegExp): Promise<number> => {
  const r = await hexaElsewhere(["verify", bundle]);
  expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);
  expect(r.stdout).toMatch(what);
  expect(namesIn(r.cwd)).toEqual([]);
  expect(namesIn(r.home)).toEqual([]);
  return Number(/ (\d+) trainings checked/.exec(r.stdout)?.[1] ?? Number.NaN);
};

/** `hexa bundle` of a copy of `runDir` in `dir` without the trainings the run kept: its output and the bundle path asked for. */
export const bundleWithoutKeptTrainings = async (runDir: string, dir: string): Promise<Out & { out: string }> => {
  const bare = join(dir, basename(runDir));
  cpSync(runDir, bare, { recursive: true });
  rmSync(join(bare, "trainer-cache"), { recursive: true });
  const out = join(dir, "bare.tar.gz");
  return { ...(await hexa(["bundle", bare, "-o", out])), out };
};
