import { existsSync } from "node:fs";
import { join } from "node:path";
import type { SearchReplay, SearchReplayRecord } from "../../../src/family/replay.ts";
import { SEARCH_RECORD_FILE } from "../../../src/search/search-record.ts";
import { CannotVerify } from "../../../src/verify/outcome.ts";
import { executeSearch } from "../cli/search-execute.ts";
import { SearchSettings } from "../cli/search-settings.ts";
import { heuristicProposer } from "../proposers/heuristic-proposer.ts";
import { llmProposer } from "../proposers/llm-proposer.ts";
import { BUNDLED_TRAINER_CACHE, bundledTrainerCache } from "./recorded-trainings.ts";
import { replayTrainerPool, type TrainingsReplay } from "./replay-pool.ts";
import { retrainSome } from "./retrain.ts";
import { cacheDirOf } from "../trainer/run-pools.ts";

/** The settings of a search record, or why they cannot be replayed. */
const settingsOf = (record: Pick<SearchReplayRecord, "searchDir" | "settings">): SearchSettings => {
  const parsed = SearchSettings.safeParse(record.settings);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw new CannotVerify(
    `${join(record.searchDir, SEARCH_RECORD_FILE)}: settings.${issue.path.join(".")}: ${issue.message}; not the settings of a search this hexa runs`,
  );
};

/** Where a search's replay finds its trainings: the entries a bundle carries, else the trainer cache the search used. */
const cacheOf = (searchDir: string, s: SearchSettings): string => {
  const bundled = bundledTrainerCache(searchDir);
  return existsSync(bundled) ? bundled : cacheDirOf(s.rewardSearch, undefined);
};

/**
 * A `hexa search` under `hexa verify` (docs/guides/verify.md): the search's own code runs again on its recorded
 * settings, its proposer's requests answered from the recorded exchanges and every training from the trainer
 * cache, exactly as a run's replay answers them; some trainings trained again on request.
 */
export const replaySearch = (record: SearchReplayRecord): SearchReplay => {
  const s = settingsOf(record);
  const state: TrainingsReplay = { cacheDir: cacheOf(record.searchDir, s), startedAt: record.startedAt, used: [] };
  const pool = replayTrainerPool(() => state);
  return {
    answered: () => state.used.length,
    missing: () => state.missing,
    retrain: (o) => retrainSome(s.rewardSearch, state.used, { ...o, jobsDir: join(record.workDir, "retrained") }),
    close: async () => {},
    recordedFiles: () =>
      [...new Set(state.used.map((u) => u.key))].map((key) => ({ path: `${BUNDLED_TRAINER_CACHE}/${key}.json`, source: join(state.cacheDir, `${key}.json`) })),
    execute: async (out) => {
      const proposer = s.llm ? llmProposer(record.model("actor", s.llm.model)) : heuristicProposer();
      await executeSearch(s, { out, proposer, pool, stdout: () => {}, stderr: () => {} });
    },
  };
};
