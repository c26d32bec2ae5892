import { existsSync } from "node:fs";
import { join } from "node:path";
import type { FamilyReplay, ReplayRecord } from "../../../src/family/replay.ts";
import { RewardSearchConfig } from "../config.ts";
import type { TrainerPool } from "../trainer/pool.ts";
import { recordedTrainingsDir, replayTrainerPool, type TrainingsReplay } from "./replay-pool.ts";
import { retrainSome } from "./retrain.ts";
import { RUN_TRAINER_CACHE } from "../trainer/run-pools.ts";
import { bundledTrainerCache } from "./recorded-trainings.ts";

/**
 * The replay in progress, held by the family's module value (levels/reward-search/module.ts): the family keeps one
 * pool per trainer setting, so a pool made for an earlier replayed run asks here.
 */
export interface ReplaySlot {
  current?: TrainingsReplay | undefined;
}

/**
 * Reward search under `hexa verify` (docs/guides/verify.md): its trainings answered from the recorded trainings
 * (`recordedTrainingsDir`, never the cacheDir the run's config names) through `route` (the module's choice of trainer pool), some trained again on request.
 */
export const replayTrainings = (
  record: ReplayRecord,
  route: (f: ((c: RewardSearchConfig) => TrainerPool) | undefined) => void,
  slot: ReplaySlot,
): FamilyReplay => {
  const c = RewardSearchConfig.parse((record.config as unknown as Record<string, unknown>).rewardSearch ?? {});
  // The entries the run kept (bundle/trainer-cache/, else the run's trainer-cache/), else the reader's cache.
  const own = [bundledTrainerCache(record.runDir), join(record.runDir, RUN_TRAINER_CACHE)].find((d) => existsSync(d));
  const cacheDir = own ?? recordedTrainingsDir(record.runDir, bundledTrainerCache(record.runDir), record.trainerCache);
  const state: TrainingsReplay = { cacheDir, startedAt: record.startedAt, used: [] };
  slot.current = state;
  route(() => replayTrainerPool(() => slot.current ?? state));
  return {
    answered: () => state.used.length,
    missing: () => state.missing,
    retrain: (o) => retrainSome(c, state.used, { ...o, jobsDir: join(record.workDir, "retrained") }),
    close: async () => {
      route(undefined);
      slot.current = undefined;
    },
  };
};
