import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { ConfigError } from "../errors.ts";
import { writeJsonAtomic } from "./jsonl.ts";

/**
 * final-scores.json of a run directory (docs/spec/reward-search.md §7): each level's final figure after the run's rounds or its
 * whole search, as the family measures it (reward search: the human-normalised F of the final reward's policy
 * on held-out evaluation seeds). Written by `hexa run`, read by `hexa compare` and `hexa bench`.
 */
const FINAL_SCORES_FILE = "final-scores.json";

/**
 * A figure over repeated measurements (reward search: the final reward trained on several fresh training seeds):
 * mean, sample std, a 95 % bootstrap interval of the mean, and each measurement (null where undefined).
 */
export const Spread = z.object({
  n: z.number().int().min(1),
  mean: z.number(),
  std: z.number(),
  low: z.number(),
  high: z.number(),
  perSeed: z.array(z.number().nullable()),
});
export type Spread = z.infer<typeof Spread>;

export const FinalScore = z.object({
  level: z.string(),
  /** The family's headline number for the level; null where it is undefined (e.g. no human reference). */
  score: z.number().nullable(),
  /** The score's spread over its measurements (schema 2; a schema-1 file has a single measurement and none). */
  spread: Spread.optional(),
  /** What `score` is, in words. */
  measure: z.string(),
  /** The raw figure behind the score, comparable where the score is undefined (reward search: F of the final policy). */
  raw: z.object({ name: z.string(), value: z.number().nullable(), spread: Spread.optional() }).optional(),
  /** What the run spent on the level in the family's unit (reward search: trainings). */
  spent: z.number().int().min(0),
  /** The family's own figures behind the score. */
  detail: z.record(z.string(), z.unknown()),
});
export type FinalScore = z.infer<typeof FinalScore>;

/** Schema 1: one training per score (on the search's own seeds); schema 2 adds the spreads. Both are read. */
const FINAL_SCORES_SCHEMA = 2;
export const FinalScores = z.object({ schemaVersion: z.union([z.literal(1), z.literal(FINAL_SCORES_SCHEMA)]), levels: z.array(FinalScore) });
export type FinalScores = z.infer<typeof FinalScores>;

export const writeFinalScores = (runDir: string, levels: readonly FinalScore[]): string => {
  const path = join(runDir, FINAL_SCORES_FILE);
  writeJsonAtomic(path, { schemaVersion: FINAL_SCORES_SCHEMA, levels });
  return path;
};

/** The run's final scores; undefined when it has none (yet). */
export const readFinalScores = (runDir: string): FinalScores | undefined => {
  const path = join(runDir, FINAL_SCORES_FILE);
  if (!existsSync(path)) return undefined;
  const parsed = FinalScores.safeParse(JSON.parse(readFileSync(path, "utf8")));
  if (!parsed.success)
    throw new ConfigError(
      `${path}: not a final-scores file this hexa reads (${parsed.error.issues[0]?.message}); delete it and rerun hexa run --resume ${runDir}`,
    );
  return parsed.data;
};
