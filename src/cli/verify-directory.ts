import { join } from "node:path";
import { HexaError } from "../errors.ts";
import { writeJsonAtomic } from "../store/jsonl.ts";
import type { CodeVersion } from "../store/run-records.ts";
import { type VerifyReport, zeroCounts } from "../verify/outcome.ts";
import { codeVersion } from "./run-setup.ts";
import { verifyRun, type VerifyOptions } from "./verify-run.ts";

/** verification.json, as `hexa inspect` shows a run's last verification. */
export interface VerificationRecord {
  verifiedAt: string;
  codeVersion: CodeVersion;
  status: VerifyReport["status"];
  counts: VerifyReport["counts"];
  divergence?: VerifyReport["divergence"];
}

export const VERIFICATION_FILE = "verification.json";

/** Writes `dir/verification.json` for a report (only `--record` asks for it). */
export const recordVerification = (dir: string, r: VerifyReport, now: Date = new Date()): string => {
  const path = join(dir, VERIFICATION_FILE);
  const line: VerificationRecord = {
    verifiedAt: now.toISOString(),
    codeVersion: codeVersion(),
    status: r.status,
    counts: r.counts,
    ...(r.divergence ? { divergence: r.divergence } : {}),
  };
  writeJsonAtomic(path, line);
  return path;
};

/**
 * `hexa verify DIR`'s work, for any caller (docs/guides/verify.md): replays the run in DIR and compares it with its
 * record. Never throws for a directory that cannot be verified: the report says so (status "cannot") and why.
 */
export const verifyRunDirectory = async (dir: string, options: VerifyOptions & { record?: boolean } = {}): Promise<VerifyReport> => {
  let report: VerifyReport;
  try {
    report = await verifyRun(dir, options);
  } catch (e) {
    if (!(e instanceof HexaError)) throw e;
    report = { status: "cannot", dir, counts: zeroCounts(), message: e.message };
  }
  if (options.record) recordVerification(dir, report);
  return report;
};
