import { headlineBySeed, type Figure, type FinalScore } from "../../store/final-scores.ts";
import { fixed } from "../../cli-kit/format.ts";

/**
 * The final scores of a run or a search (final-scores.json, docs/spec/reward-search.md §7) for `hexa inspect`: per
 * level, each of the family's figures in its order (the headline first) as text, the headline per seed, what was
 * spent and where the scored thing came from. Pure; the CLI reads the files.
 */

/** `label mean ± std [lo, hi] (n N)`, `label mean (n N; no interval: why)` with too few values, or `label n/a (why)` where the family left it undefined. */
export const figureText = (f: Figure): string =>
  f.mean === null
    ? `${f.label} n/a (${f.why ?? "undefined"})`
    : `${f.label} ${fixed(f.mean)}${f.std === undefined ? "" : ` ± ${fixed(f.std)}`}${f.ci95 ? ` [${fixed(f.ci95[0])}, ${fixed(f.ci95[1])}]` : ""} (n ${f.n}${f.ci95 || !f.why ? "" : `; no interval: ${f.why}`})`;

export interface FinalScoresView {
  /** The directory of final-scores.json, relative to what `hexa inspect` was given (or its own name). */
  name: string;
  levels: {
    level: string;
    measure: string;
    spent: number;
    source?: string;
    figures: string[];
    /** The headline per seed, `seed: value`. */
    perSeed: string[];
  }[];
}

export const finalScoresView = (name: string, scores: readonly FinalScore[]): FinalScoresView => ({
  name,
  levels: scores.map((s) => ({
    level: s.level,
    measure: s.measure,
    spent: s.spent,
    ...(typeof s.detail.source === "string" ? { source: s.detail.source } : {}),
    figures: Object.values(s.figures).map(figureText),
    perSeed: [...headlineBySeed(s)].map(([seed, v]) => `${seed}: ${fixed(v)}`),
  })),
});
