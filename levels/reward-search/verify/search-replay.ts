import { join } from "node:path";
import type { SearchReplay, SearchReplayRecord } from "../../../src/family/replay.ts";
import { copyCorrections } from "../../../src/search/p2p-corrections.ts";
import { recordedCarriedEvents } from "../../../src/search/p2p-carried.ts";
import { SEARCH_RECORD_FILE } from "../../../src/search/search-record.ts";
import { CannotVerify } from "../../../src/verify/outcome.ts";
import { executeSearch } from "../cli/search-execute.ts";
import { executeP2p } from "../cli/search-p2p.ts";
import { heuristicReviser } from "../proposers/p2p-heuristic-reviser.ts";
import { llmReviser } from "../proposers/p2p-llm-reviser.ts";
import { SearchSettings } from "../cli/search-settings.ts";
import type { IntentSettings } from "../cli/search-intent.ts";
import type { IntentModels } from "../search/p2p-intent-judge.ts";
import { heuristicProposer } from "../proposers/heuristic-proposer.ts";
import { llmProposer } from "../proposers/llm-proposer.ts";
import { BUNDLED_TRAINER_CACHE, bundledTrainerCache } from "./recorded-trainings.ts";
import { RewardSearchConfig } from "../config.ts";
import { recordedTrainingsDir, replayTrainerPool, type TrainingsReplay } from "./replay-pool.ts";
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

/**
 * The settings the replay runs (docs/security.md): those that shape the candidates and the final score; the
 * trainer command, the cache and jobs folders and the endpoint search-config.json names are dropped (a replay
 * trains nothing and asks no endpoint; `--retrain` uses the reader's trainer), their folders moved into `workDir`.
 */
const replaySettings = (s: SearchSettings, workDir: string): SearchSettings => {
  const { wallMs, maxSteps } = s.rewardSearch.trainer;
  const rewardSearch = RewardSearchConfig.parse({
    trainer: { ...(wallMs === undefined ? {} : { wallMs }), ...(maxSteps === undefined ? {} : { maxSteps }) },
    ...(s.rewardSearch.trainSteps === undefined ? {} : { trainSteps: s.rewardSearch.trainSteps }),
    ...(s.rewardSearch.finishSteps === undefined ? {} : { finishSteps: s.rewardSearch.finishSteps }),
    finalTrainings: s.rewardSearch.finalTrainings,
    checkTransitions: s.rewardSearch.checkTransitions,
    cacheDir: join(workDir, "trainer-cache"),
    jobsDir: join(workDir, "trainer-jobs"),
  });
  return { ...s, rewardSearch, ...(s.llm ? { llm: { model: s.llm.model } } : {}) };
};

/** An intent search's judges, answered from the recorded exchanges as the reviser is. */
const replayedJudges = (record: SearchReplayRecord, i: IntentSettings): IntentModels => ({
  judge: record.model("judge", i.judge.model),
  ...(i.vision
    ? { vision: { model: record.model("vision", i.vision.model), limits: { maxImages: i.vision.maxImages, video: i.vision.video }, trail: i.vision.trail } }
    : {}),
});

/**
 * A `hexa search` under `hexa verify` (docs/guides/verify.md): the search's own code runs again on its recorded
 * settings, its proposer's requests answered from the recorded exchanges and every training from the trainer
 * cache, exactly as a run's replay answers them, a p2p search's corrections read from its lineage; some trainings
 * trained again on request.
 */
export const replaySearch = (record: SearchReplayRecord): SearchReplay => {
  const recorded = settingsOf(record);
  const s = replaySettings(recorded, record.workDir);
  const cacheDir = record.ownTrainings
    ? cacheDirOf(recorded.rewardSearch, undefined)
    : recordedTrainingsDir(record.searchDir, bundledTrainerCache(record.searchDir), record.trainerCache);
  const state: TrainingsReplay = { cacheDir, startedAt: record.startedAt, used: [] };
  const pool = replayTrainerPool(() => state);
  return {
    answered: () => state.used.length,
    missing: () => state.missing,
    retrain: (o) => retrainSome(s.rewardSearch, state.used, { ...o, jobsDir: join(record.workDir, "retrained") }),
    close: async () => {},
    recordedFiles: () =>
      [...new Set(state.used.map((u) => u.key))].map((key) => ({ path: `${BUNDLED_TRAINER_CACHE}/${key}.json`, source: join(state.cacheDir, `${key}.json`) })),
    execute: async (out) => {
      const model = s.llm ? record.model("actor", s.llm.model) : undefined;
      const quiet = { out, pool, stdout: () => {}, stderr: () => {} };
      const intent = s.intent ? { intent: replayedJudges(record, s.intent) } : {};
      if (s.method === "p2p") {
        copyCorrections(record.searchDir, out);
        // The carried lessons come from the search's own bank-events.jsonl, never from the folders they were read from.
        const carried = recordedCarriedEvents(record.searchDir);
        await executeP2p(s, { ...quiet, ...intent, ...(carried.length ? { carried } : {}), reviser: model ? llmReviser(model) : heuristicReviser() });
      } else await executeSearch(s, { ...quiet, proposer: model ? llmProposer(model) : heuristicProposer() });
    },
  };
};
