import { existsSync, mkdtempSync, rmSync } from "node:fs";
import type { FamilyRegistry } from "../app/families.ts";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SearchReplay } from "../family/replay.ts";
import { readSearchRecord, SEARCH_RECORD_FILE, type SearchRecord } from "../search/search-record.ts";
import { compareCandidates, compareOtherRecords } from "../verify/compare-records.ts";
import { CannotVerify, type Divergence, reportOf, type VerifyCounts, type VerifyReport, zeroCounts } from "../verify/outcome.ts";
import { readExchanges } from "../verify/recorded-exchanges.ts";
import { ReplayBook } from "../verify/replay-model.ts";
import { retrainChoices, type VerifyOptions } from "./verify-run.ts";

const FINAL_SCORES = "final-scores.json";

/** The search record of a finished search, or why the directory cannot be replayed. */
export const finishedSearch = (dir: string): SearchRecord => {
  const record = readSearchRecord(dir);
  if (!record)
    throw new CannotVerify(
      `${join(dir, SEARCH_RECORD_FILE)}: missing; the search was made by a hexa that did not record its settings as resolved, so it cannot be run again (make it again with this hexa's hexa search)`,
    );
  if (!existsSync(join(dir, FINAL_SCORES)))
    throw new CannotVerify(`${join(dir, FINAL_SCORES)}: missing; the search has not finished: resume it with the same hexa search command, then verify it`);
  return record;
};

/** The candidates, the final scores and the search's other records against the replay's. */
const compareSearch = (record: string, replayed: string, counts: VerifyCounts): Divergence | undefined => {
  const candidates = compareCandidates(record, replayed, "candidates.jsonl");
  counts.candidates = candidates.count;
  return candidates.divergence ?? compareOtherRecords(record, replayed);
};

/** A search's replay, opened: its record, the family's side, and the recorded exchanges once a model was asked. */
interface SearchReplayOf {
  record: SearchRecord;
  family: SearchReplay;
  book(): ReplayBook | undefined;
  /** Runs the search again into `out`; the error it ended in, if any. */
  execute(out: string): Promise<Error | undefined>;
}

/** The family that made the search (search-config.json names it), replaying it with the record's settings and exchanges. */
export const openSearchReplay = async (
  families: FamilyRegistry,
  dir: string,
  record: SearchRecord,
  workDir: string,
  /** "own": the caller made the directory (hexa bundle), its trainings are where its settings say; else the reader's folder, if any. */
  trainings: "own" | { readerCache?: string | undefined },
): Promise<SearchReplayOf> => {
  const module = families.modules().find((m) => m.id === record.family);
  const replaySearch = module?.replay?.search;
  if (!replaySearch)
    throw new CannotVerify(
      `${join(dir, SEARCH_RECORD_FILE)}: family: '${record.family}' ${module ? "cannot replay its searches" : "is not a family of this hexa (hexa levels list)"}`,
    );
  let book: ReplayBook | undefined;
  const family = await replaySearch({
    searchDir: dir,
    settings: record.settings,
    startedAt: new Date(record.startedAt),
    workDir,
    ...(trainings === "own" ? { ownTrainings: true } : trainings.readerCache === undefined ? {} : { trainerCache: trainings.readerCache }),
    model: (role, name) => (book ??= new ReplayBook(readExchanges(join(dir, "llm-log.jsonl")), "search")).model(role, name),
  });
  return {
    record,
    family,
    book: () => book,
    execute: (out) =>
      family.execute(out).then(
        () => undefined,
        (e: unknown) => (e instanceof Error ? e : new Error(String(e))),
      ),
  };
};

/**
 * Re-executes a `hexa search` directory (docs/guides/verify.md): the search's own code on the settings
 * search-config.json records that shape its candidates (the family drops every trainer command, endpoint and
 * path they name, docs/security.md), run by the family that made it in a fresh folder, every model request answered
 * from llm-log.jsonl by its exact key and every training from the record, as a run's replay; then every
 * candidate and the final scores compared with the record. Never opens a connection.
 */
export const verifySearch = async (families: FamilyRegistry, dir: string, options: VerifyOptions = {}): Promise<VerifyReport> => {
  const record = finishedSearch(dir);
  const counts: VerifyCounts = { ...zeroCounts(), runs: 1, candidates: 0 };
  const work = mkdtempSync(join(tmpdir(), "hexa-verify-search-"));
  let replay: SearchReplayOf | undefined;
  const report = (divergence?: Divergence): VerifyReport => {
    counts.modelExchanges = replay?.book()?.answered ?? 0;
    counts.trainings += replay?.family.answered() ?? 0;
    return reportOf(dir, counts, divergence);
  };
  try {
    replay = await openSearchReplay(families, dir, record, work, { readerCache: options.trainerCache });
    const out = join(work, "search");
    const failed = await replay.execute(out);
    const book = replay.book();
    if (book?.divergence) return report(book.divergence);
    const missing = replay.family.missing();
    if (missing) throw new CannotVerify(missing);
    if (failed instanceof CannotVerify) throw failed;
    if (failed) return report({ what: "the replayed search", field: "outcome", recorded: "finished", replayed: failed.message });
    // A resumed search's log also holds the exchanges of candidates cut short and proposed again, which no record cites.
    const divergence = compareSearch(dir, out, counts) ?? (record.resumed ? undefined : book?.firstUnasked());
    if (divergence || !options.retrain || !replay.family.retrain) return report(divergence);
    const seed = options.retrainSeed ?? Math.floor(Math.random() * 2 ** 31);
    const log = options.log ?? (() => {});
    const again = await replay.family.retrain({
      count: options.retrain,
      seed,
      ...retrainChoices(options),
      log,
    });
    counts.trainings += again.checked;
    return report(again.divergence);
  } finally {
    await replay?.family.close();
    rmSync(work, { recursive: true, force: true });
  }
};
