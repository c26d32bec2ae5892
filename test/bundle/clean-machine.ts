import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT, type Out } from "../support/hexa-cli.ts";

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
