import { z } from "zod";
import { ConfigError } from "../../src/errors.ts";
import { DEFAULT_FINAL_TRAININGS } from "./search/final-protocol.ts";
import { TrainerConfig } from "./trainer/trainer-config.ts";

/** The reward-search family's slice of a run config (`rewardSearch:`), docs/spec/reward-search.md §1. */
export const RewardSearchConfig = z.strictObject({
  trainer: TrainerConfig.prefault({}).describe("the trainer process (docs/trainer-protocol.md): the built-in PPO trainer unless command is set"),
  trainSteps: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe("env steps of a train_policy call when the model gives none; unset: a quarter of the task's full budget"),
  finishSteps: z.number().int().min(1).optional().describe("env steps of the scored training behind finish; unset: the task's full budget"),
  finalTrainings: z
    .number()
    .int()
    .min(1)
    .max(64)
    .default(DEFAULT_FINAL_TRAININGS)
    .describe("fresh training seeds the final reward, the sparse and the human one are each trained on for the final score (docs/spec/reward-search.md §7)"),
  checkTransitions: z.number().int().min(16).default(320).describe("sampled transitions check_reward runs the code on"),
  cacheDir: z
    .string()
    .optional()
    .describe(
      "trainings cached by (task, instance, code, seed, steps, trainer): a repeated candidate or a resumed run trains nothing twice; unset: .trainer-cache in the run's runs folder (--runs-dir), or in runs/ here for a command that makes no run",
    ),
  jobsDir: z
    .string()
    .optional()
    .describe(
      "one directory per training job (its code, request, policy and result); unset: .trainer-jobs in the run's runs folder (--runs-dir), or in runs/ here for a command that makes no run",
    ),
});
export type RewardSearchConfig = z.infer<typeof RewardSearchConfig>;

/** Steps of a quick training and of the scored one, for a task's full budget. */
export const budgetsOf = (c: RewardSearchConfig, fullSteps: number) => ({
  train: c.trainSteps ?? Math.max(1, Math.round(fullSteps / 4)),
  finish: c.finishSteps ?? fullSteps,
});

const isMap = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

/** The keys of `rewardSearch` that became the run's `method` and `search:` (src/search/config.ts). */
const MOVED = ["budget", "eureka", "rfAgent"] as const;

/**
 * Configs written before the search methods became generic kept them in this slice: `rewardSearch.strategy`
 * (now the top-level `method`) and `rewardSearch.budget`, `.eureka`, `.rfAgent` (now under `search:`). They
 * are moved on read, so those configs and run directories still run and resume; run.json's config hash is of
 * config.yaml's data as written, so an old run's hash is unchanged. A key given both ways is refused.
 */
export const upgradeRewardSearch = (raw: Record<string, unknown>): Record<string, unknown> => {
  const rs = raw.rewardSearch;
  if (!isMap(rs) || (raw.search !== undefined && !isMap(raw.search))) return raw;
  const { strategy, ...rest } = rs;
  const moved = Object.fromEntries(MOVED.flatMap((k) => (rs[k] === undefined ? [] : [[k, rs[k]]])));
  if (strategy === undefined && Object.keys(moved).length === 0) return raw;
  for (const k of MOVED) delete rest[k];
  if (strategy !== undefined && raw.method !== undefined) {
    throw new ConfigError(
      `rewardSearch.strategy: moved to method (got both, ${JSON.stringify(strategy)} and ${JSON.stringify(raw.method)}); drop rewardSearch.strategy`,
    );
  }
  const search = isMap(raw.search) ? raw.search : {};
  const both = Object.keys(moved).find((k) => search[k] !== undefined);
  if (both) throw new ConfigError(`rewardSearch.${both}: moved to search.${both} (got both); drop rewardSearch.${both}`);
  return { ...raw, ...(strategy === undefined ? {} : { method: strategy }), rewardSearch: rest, search: { ...search, ...moved } };
};
