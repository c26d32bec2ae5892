import { existsSync, lstatSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FamilyRegistry } from "../app/families.ts";
import type { RoleModel } from "../llm/ask.ts";
import type { Role } from "../llm/config.ts";
import { CannotVerify, type Divergence, reportOf, type VerifyCounts, type VerifyReport, zeroCounts } from "../verify/outcome.ts";
import { readExchanges } from "../verify/recorded-exchanges.ts";
import { ReplayBook } from "../verify/replay-model.ts";

export const JUDGMENT_FILE = "judgment.json";
const LOG_FILE = "llm-log.jsonl";
/** The largest llm-log.jsonl a judgment's replay reads (an authoring's exchanges are a few hundred KiB). */
const MAX_JUDGMENT_LOG_BYTES = 64 << 20;

/** The folder's llm-log.jsonl as recorded exchanges, and the model each role was asked by name; none when absent. */
const recordedLog = (dir: string): { book: ReplayBook; names: Map<string, string> } | undefined => {
  const path = join(dir, LOG_FILE);
  if (!existsSync(path)) return undefined;
  const st = lstatSync(path);
  if (!st.isFile()) throw new CannotVerify(`${path}: ${LOG_FILE}: not a plain file (a link or a folder); a judgment's log is read only from the folder itself`);
  if (st.size > MAX_JUDGMENT_LOG_BYTES)
    throw new CannotVerify(`${path}: ${LOG_FILE}: ${st.size} bytes, more than ${MAX_JUDGMENT_LOG_BYTES}; not a judgment's log`);
  const exchanges = readExchanges(path);
  const names = new Map<string, string>();
  readFileSync(path, "utf8")
    .split("\n")
    .forEach((text) => {
      if (text.trim() === "") return;
      // readExchanges checked every line against AuditLine: role and modelRequested are strings.
      const line = JSON.parse(text) as { role: string; modelRequested: string };
      if (!names.has(line.role)) names.set(line.role, line.modelRequested);
    });
  return { book: new ReplayBook(exchanges, "judgment"), names };
};

/**
 * Replays a `hexa judge` folder offline (docs/guides/judging.md, "hexa verify"): the family that judges re-authors
 * the code judge with every model request answered from the folder's llm-log.jsonl by its exact key, re-judges the
 * recorded trajectories, and compares judgment.json (and the authored judge) with the record. Never opens a
 * connection, and follows no path, endpoint or command the folder names (docs/security.md).
 */
export const verifyJudgment = async (families: FamilyRegistry, dir: string): Promise<VerifyReport> => {
  const replay = families.modules().find((m) => m.replay?.judgment)?.replay?.judgment;
  if (!replay) throw new CannotVerify(`${join(dir, JUDGMENT_FILE)}: no family of this hexa replays a judgment (hexa levels list)`);
  const log = recordedLog(dir);
  const counts: VerifyCounts = { ...zeroCounts(), runs: 1, judged: 0 };
  const report = (divergence?: Divergence): VerifyReport => {
    counts.modelExchanges = log?.book.answered ?? 0;
    return reportOf(dir, counts, divergence);
  };
  const work = mkdtempSync(join(tmpdir(), "hexa-verify-judgment-"));
  const model = (role: Role): RoleModel | undefined => {
    const name = log?.names.get(role);
    return log && name !== undefined ? log.book.model(role, name) : undefined;
  };
  try {
    const outcome = await replay({ judgmentDir: dir, workDir: work, model }).catch((e: unknown) => e as Error);
    if (log?.book.divergence) return report(log.book.divergence);
    if (outcome instanceof CannotVerify) throw outcome;
    if (outcome instanceof Error) return report({ what: "the replayed judgment", field: "outcome", recorded: "finished", replayed: outcome.message });
    counts.judged = outcome.episodes;
    return report(outcome.divergence ?? log?.book.firstUnasked());
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
};
