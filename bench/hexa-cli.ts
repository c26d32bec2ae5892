/**
 * The bench scripts that measure a CLI command run it as a user does: `bin/hexa.js` (./hexa) from the compiled
 * dist/ (`npm run build` first), in the repository root, its stderr passed through as progress.
 */
import { execaSync } from "execa";
import { readFileSync } from "node:fs";
import { join } from "node:path";
// @ts-expect-error bin/launch.js is plain JavaScript without types
import { distIsFresh } from "../bin/launch.js";
import { failFlag } from "./flags.ts";
import { ROOT } from "./page.ts";

export const HEXA_BIN = join(ROOT, "bin", "hexa.js");

/** Stop (status 2) unless dist/ is built and newer than the sources: timings through tsx would be a different program. */
export const requireBuild = (script: string): void => {
  if (!(distIsFresh as () => boolean)()) failFlag(`${script}: dist/ is missing or older than the sources; run npm run build first`);
};

export interface CliResult {
  stdout: string;
  /** Wall seconds of the whole process. */
  wallS: number;
}

/** Run `hexa <args>`; throws with the exit status when it fails. */
export const hexaCli = (args: readonly string[], opts: { env?: NodeJS.ProcessEnv } = {}): CliResult => {
  const t0 = performance.now();
  const r = execaSync(process.execPath, [HEXA_BIN, ...args], {
    cwd: ROOT,
    ...(opts.env ? { env: opts.env } : {}),
    maxBuffer: 1 << 28,
    stdin: "ignore",
    stderr: "inherit",
    stripFinalNewline: false,
    reject: false,
  });
  const wallS = (performance.now() - t0) / 1000;
  if (r.exitCode !== 0) throw new Error(`hexa ${args.join(" ")}: exit ${r.exitCode ?? r.signal ?? r.shortMessage}\n${r.stdout.slice(-2000)}`);
  return { stdout: r.stdout, wallS };
};

/** The `run directory: <dir>` line `hexa run` prints. */
export const runDirOf = (stdout: string): string => {
  const m = /^run directory: (.+)$/m.exec(stdout);
  if (!m) throw new Error(`hexa run printed no "run directory:" line:\n${stdout.slice(-1000)}`);
  return m[1]!.trim();
};

export interface LevelMetrics {
  episodes: number;
  successes: number;
  meanTurns: number;
  finalBank?: { skills: number; mistakes: number };
}

/** Per-level figures of a run's metrics.json (its stream episodes). */
export const runMetrics = (runDir: string): Record<string, LevelMetrics> => {
  const m = JSON.parse(readFileSync(join(runDir, "metrics.json"), "utf8")) as { levels?: Record<string, LevelMetrics> };
  if (!m.levels) throw new Error(`${runDir}/metrics.json has no levels`);
  return m.levels;
};
