import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describeCommand, TrainerError } from "./client.ts";
import { CONFORMANCE_CHECKS } from "./conformance-checks.ts";
import { CheckFailed, CheckSession } from "./conformance-session.ts";
import { TRAINER_PROTOCOL_VERSION } from "./protocol.ts";

/**
 * `hexa trainer check`: runs a trainer command through every part of the protocol a host relies on and says,
 * check by check, what passed. The built-in trainer must pass all of them (CI runs it with a tiny job). The
 * checks are in conformance-checks.ts, the trainer and jobs they share in conformance-session.ts.
 */

export interface ConformanceCheck {
  name: string;
  ok: boolean;
  detail: string;
  ms: number;
}

export interface ConformanceOptions {
  command?: readonly string[];
  /** Task of the training checks (default: cartpole when served, else the first task). */
  task?: string;
  /** Env steps of the tiny training job. */
  steps?: number;
  /** A reward the task accepts (default: a constant alive bonus with one component). */
  reward?: string;
  startTimeoutMs?: number;
  /** How long the tiny job may take. */
  jobTimeoutMs?: number;
  onLog?: (line: string) => void;
  /** Called as each check ends (for a live table). */
  onCheck?: (c: ConformanceCheck) => void;
}

/** Runs one check: its detail, or what failed (a stack only for what is neither a check's nor the trainer's error). */
const runCheck = async (name: string, body: () => Promise<string>): Promise<ConformanceCheck> => {
  const t0 = Date.now();
  let ok = true;
  let detail: string;
  try {
    detail = await body();
  } catch (e) {
    ok = false;
    detail = e instanceof CheckFailed || e instanceof TrainerError ? e.message : `${(e as Error)?.stack ?? String(e)}`;
  }
  return { name, ok, detail, ms: Date.now() - t0 };
};

export const runConformance = async (opts: ConformanceOptions = {}): Promise<ConformanceCheck[]> => {
  const checks: ConformanceCheck[] = [];
  const root = mkdtempSync(join(tmpdir(), "hexa-trainer-check-"));
  const session = new CheckSession(opts, root, opts.startTimeoutMs ?? 60_000, opts.jobTimeoutMs ?? 300_000);
  try {
    for (const { name, run } of CONFORMANCE_CHECKS) {
      const c = await runCheck(name, () => run(session));
      checks.push(c);
      opts.onCheck?.(c);
    }
  } finally {
    await session.close();
    rmSync(root, { recursive: true, force: true });
  }
  return checks;
};

export const formatConformance = (command: readonly string[] | undefined, checks: readonly ConformanceCheck[]): string => {
  const name = command ? describeCommand(command) : "the built-in trainer";
  const width = Math.max(...checks.map((c) => c.name.length), 5);
  // A detail's further lines (the trainer's stderr, kept by the client) go under its row, each block once.
  const shown = new Set<string>();
  const rows = checks.flatMap((c) => {
    const [first, ...more] = c.detail.split("\n");
    const row = `${c.ok ? "pass" : "FAIL"}  ${c.name.padEnd(width)}  ${String(c.ms).padStart(6)} ms  ${first}`;
    const block = more.join("\n");
    if (!block.trim()) return [row];
    if (shown.has(block)) return [`${row} (as above)`];
    shown.add(block);
    return [row, ...more.map((l) => `      ${l}`)];
  });
  const failed = checks.filter((c) => !c.ok).length;
  return [
    `trainer protocol ${TRAINER_PROTOCOL_VERSION} conformance: ${name}`,
    "",
    `      ${"check".padEnd(width)}  ${"time".padStart(9)}  detail`,
    ...rows,
    "",
    failed ? `${failed} of ${checks.length} checks failed` : `all ${checks.length} checks passed`,
  ].join("\n");
};
