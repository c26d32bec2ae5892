import { existsSync } from "node:fs";
import type { AppContext } from "../app/context.ts";
import { join } from "node:path";
import { HexaError } from "../errors.ts";
import { writeJsonAtomic } from "../store/jsonl.ts";
import { VERIFICATION_FILE, type VerificationRecord } from "../store/run-attestations.ts";
import { CannotVerify, type VerifyReport, zeroCounts } from "../verify/outcome.ts";
import { codeLabel, codeVersion } from "../app/run-setup.ts";
import { verifyCompare } from "./verify-compare.ts";
import { verifyRun, type VerifyOptions } from "./verify-run.ts";
import { JUDGMENT_FILE, verifyJudgment } from "./verify-judgment.ts";
import { verifySearch } from "./verify-search.ts";

/** Writes `dir/verification.json` for a report (only `--record` asks for it). */
export const recordVerification = (dir: string, r: VerifyReport, now: Date = new Date()): string => {
  const path = join(dir, VERIFICATION_FILE);
  const line: VerificationRecord = {
    verifiedAt: now.toISOString(),
    codeVersion: `hexa ${codeLabel(codeVersion())}`,
    status: r.status,
    counts: r.counts,
    ...(r.divergence ? { divergence: r.divergence } : {}),
  };
  writeJsonAtomic(path, line);
  return path;
};

/** A run directory, a `hexa compare` directory, a `hexa search` directory, or what cannot be verified and why. */
const verifyAny = (ctx: AppContext, dir: string, options: VerifyOptions): Promise<VerifyReport> => {
  if (existsSync(join(dir, "run.json"))) return verifyRun(ctx, dir, options);
  if (existsSync(join(dir, "compare.json"))) return verifyCompare(ctx, dir, options);
  if (existsSync(join(dir, "search.json"))) return verifySearch(ctx.families, dir, options);
  if (existsSync(join(dir, JUDGMENT_FILE))) return verifyJudgment(ctx.families, dir);
  if (!existsSync(dir)) throw new CannotVerify(`${dir}: no such directory`);
  throw new CannotVerify(
    `${dir}: not a run (no run.json), a hexa compare directory (no compare.json) a hexa search directory (no search.json) nor a hexa judge folder (no judgment.json)`,
  );
};

/**
 * `hexa verify DIR`'s work, for any caller (docs/guides/verify.md): replays the run in DIR and compares it with its
 * record. Never throws for a directory that cannot be verified: the report says so (status "cannot") and why.
 */
export const verifyRunDirectory = async (ctx: AppContext, dir: string, options: VerifyOptions & { record?: boolean } = {}): Promise<VerifyReport> => {
  let report: VerifyReport;
  try {
    report = await verifyAny(ctx, dir, options);
  } catch (e) {
    if (!(e instanceof HexaError)) throw e;
    report = { status: "cannot", dir, counts: zeroCounts(), message: e.message };
  }
  if (options.record) recordVerification(dir, report);
  return report;
};
