import { z } from "zod";
import type { Figure } from "./final-scores.ts";

/**
 * final-scores.json of schemas 1 and 2 (docs/spec/reward-search.md §7): one headline `score` per level (schema 2
 * with its spread over seeds; schema 1 a single measurement) and the raw figure behind it. Lifted on read into
 * schema 3's named figures (style.md §14): `score` is the headline and `raw` a second figure under its own name;
 * each measurement of the family's `detail.perSeed` keeps its values, its training seed as `seed`.
 */

const Spread = z.object({
  n: z.number().int().min(1),
  mean: z.number(),
  std: z.number(),
  low: z.number(),
  high: z.number(),
  perSeed: z.array(z.number().nullable()),
});
type Spread = z.infer<typeof Spread>;

const LegacyScore = z.object({
  level: z.string(),
  score: z.number().nullable(),
  spread: Spread.optional(),
  measure: z.string(),
  raw: z.object({ name: z.string(), value: z.number().nullable(), spread: Spread.optional() }).optional(),
  spent: z.number().int().min(0),
  detail: z.record(z.string(), z.unknown()),
});
type LegacyScore = z.infer<typeof LegacyScore>;

export const LegacyFinalScores = z.object({ schemaVersion: z.union([z.literal(1), z.literal(2)]), levels: z.array(LegacyScore) });

const figureOf = (label: string, mean: number | null, s: Spread | undefined): Figure =>
  s ? { label, mean, std: s.std, ci95: [s.low, s.high], n: s.n } : { label, mean, n: mean === null ? 0 : 1 };

const isRecord = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === "object" && !Array.isArray(v);

/** A schema-1 or -2 level as schema 3 writes it. */
export const liftLegacyLevel = (l: LegacyScore) => ({
  level: l.level,
  measure: l.measure,
  headline: "score",
  figures: { score: figureOf("score", l.score, l.spread), ...(l.raw ? { raw: figureOf(l.raw.name, l.raw.value, l.raw.spread) } : {}) },
  perSeed: (Array.isArray(l.detail.perSeed) ? l.detail.perSeed : [])
    .filter((p): p is Record<string, unknown> => isRecord(p) && typeof p.trainSeed === "number")
    .map((p) => ({ ...p, seed: p.trainSeed as number })),
  spent: l.spent,
  detail: l.detail,
});
