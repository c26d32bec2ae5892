import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { ConfigError } from "../errors.ts";
import { writeJsonAtomic } from "./jsonl.ts";
import { LegacyFinalScores, liftLegacyLevel } from "./final-scores-legacy.ts";

/**
 * final-scores.json of a run directory (docs/spec/reward-search.md §7): each level's final figures after the run's
 * rounds or its whole search, as the family measures them over repeated measurements (reward search: F of the final
 * reward's policy on fresh training seeds and its paired differences from the sparse and human rewards). Written by
 * `hexa run` and `hexa search`, read by `hexa compare`, `hexa bench` and `hexa inspect`.
 */
const FINAL_SCORES_FILE = "final-scores.json";

/**
 * One named figure over n measurements: its mean, the sample std where it has one, the 95 % bootstrap interval of
 * the mean; or `mean: null` with `why` where the family says it is undefined.
 */
export const Figure = z.object({
  /** How a table heads it (the family's words, e.g. "F − F_sparse"). */
  label: z.string(),
  mean: z.number().nullable(),
  std: z.number().optional(),
  ci95: z.tuple([z.number(), z.number()]).optional(),
  n: z.number().int().min(0),
  why: z.string().optional(),
});
export type Figure = z.infer<typeof Figure>;

/** One measurement (reward search: one fresh training seed): its seed, for pairing, and the family's values. */
const Measurement = z.looseObject({ seed: z.number() });

export const FinalScore = z
  .object({
    level: z.string(),
    /** What the figures are, in words. */
    measure: z.string(),
    /** The key of `figures` that leads the tables; each measurement's value of it, under the same key, pairs two runs by seed. */
    headline: z.string(),
    /** The family's figures in the order tables show them, the headline first. */
    figures: z.record(z.string(), Figure),
    /** Every measurement, none dropped. */
    perSeed: z.array(Measurement),
    /** What the run spent on the level in the family's unit (reward search: trainings). */
    spent: z.number().int().min(0),
    /** The family's own figures behind the score. */
    detail: z.record(z.string(), z.unknown()),
  })
  .refine((s) => s.headline in s.figures, { message: "headline names none of figures" });
export type FinalScore = z.infer<typeof FinalScore>;

/** Schema 3: named figures (docs/spec/reward-search.md §7); schemas 1 and 2 (one normalised score) are lifted on read. */
const FINAL_SCORES_SCHEMA = 3;
const FinalScores = z.object({ schemaVersion: z.literal(FINAL_SCORES_SCHEMA), levels: z.array(FinalScore) });
export type FinalScores = z.infer<typeof FinalScores>;

/** Each measurement's headline value by seed (null where unknown). */
export const headlineBySeed = (s: FinalScore): Map<number, number | null> =>
  new Map(s.perSeed.map((m) => [m.seed, typeof m[s.headline] === "number" ? (m[s.headline] as number) : null]));

export const writeFinalScores = (runDir: string, levels: readonly FinalScore[]): string => {
  const path = join(runDir, FINAL_SCORES_FILE);
  writeJsonAtomic(path, { schemaVersion: FINAL_SCORES_SCHEMA, levels });
  return path;
};

/** Parses a final-scores file's data of any schema this hexa reads; throws a ConfigError naming `path`. */
const parseFinalScores = (data: unknown, path: string): FinalScores => {
  const legacy = LegacyFinalScores.safeParse(data);
  const parsed = FinalScores.safeParse(legacy.success ? { schemaVersion: FINAL_SCORES_SCHEMA, levels: legacy.data.levels.map(liftLegacyLevel) } : data);
  if (!parsed.success)
    throw new ConfigError(
      `${path}: not a final-scores file this hexa reads (${parsed.error.issues[0]?.message}); delete it and rerun the command that wrote it`,
    );
  return parsed.data;
};

/** The run's final scores; undefined when it has none (yet). */
export const readFinalScores = (runDir: string): FinalScores | undefined => {
  const path = join(runDir, FINAL_SCORES_FILE);
  if (!existsSync(path)) return undefined;
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(path, "utf8"));
  } catch (e) {
    throw new ConfigError(`${path}: not JSON (${(e as Error).message}); delete it and rerun the command that wrote it`);
  }
  return parseFinalScores(data, path);
};
