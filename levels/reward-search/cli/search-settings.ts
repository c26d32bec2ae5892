import { z } from "zod";
import { SEARCH_METHODS, SearchConfig } from "../../../src/search/config.ts";
import { RewardSearchConfig } from "../config.ts";
import { IntentSettings } from "./search-intent.ts";

const int0 = z.number().int().min(0);
const steps = z.number().int().min(1);

/**
 * A `hexa search` as the command resolved it: search-config.json's `settings` (src/search/search-record.ts).
 * Everything that decides the candidates and the final score is here, so `hexa verify` runs the search again
 * from this alone (docs/guides/verify.md); keys never are (they come from the environment).
 */
export const SearchSettings = z.strictObject({
  method: z.enum(SEARCH_METHODS),
  task: z.string().min(1),
  /** The task instance's seed, also the search's own random seed. */
  seed: int0,
  search: SearchConfig,
  /** The search flags given on the command line, as search.json records them. */
  options: z.record(z.string(), z.unknown()),
  /** Env steps of every candidate's training. */
  trainSteps: steps,
  /** Fresh training seeds of the final score, and the env steps of each of its trainings. */
  finalTrainings: z.number().int().min(1),
  finalSteps: steps,
  /** The reward-search slice as the search used it; cacheDir absolute. */
  rewardSearch: RewardSearchConfig,
  proposer: z.enum(["heuristic", "llm"]),
  /** The proposer's model (llm): its name, which every recorded request is keyed by, and the endpoint it was asked at. */
  llm: z.strictObject({ model: z.string().min(1), baseURL: z.string().optional() }).optional(),
  /** A task from words (p2p only): the intent, its pass threshold, the judged episodes and the judges' models. */
  intent: IntentSettings.optional(),
});
export type SearchSettings = z.infer<typeof SearchSettings>;
