/**
 * Summary statistics over runs and the paired bootstrap of `hexa compare`: pure and
 * seeded, so the same records always give the same interval.
 *
 * Empty input: `mean([])` is NaN, and so are `quantile([], q)` and the interval of `bootstrapMean([])`; `std` of
 * fewer than two values is 0. A caller that shows or stores something else for "no data" (0, null, an absent
 * field) checks for the empty case itself, where the reader can see it.
 */
import { mulberry32 } from "./rng.ts";

/** The arithmetic mean; NaN for no values. */
export const mean = (xs: readonly number[]): number => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN);

/** Sample standard deviation (n − 1): runs are a sample of what the configuration does; 0 for a single run. */
export const std = (xs: readonly number[]): number => {
  if (xs.length < 2) return 0;
  const m = mean(xs);
  return Math.sqrt(xs.reduce((s, x) => s + (x - m) ** 2, 0) / (xs.length - 1));
};

/** The q-quantile of sorted values by the nearest-rank rule (no interpolation): a value the bootstrap produced. */
export const quantile = (sorted: readonly number[], q: number): number => {
  if (!sorted.length) return NaN;
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil(q * sorted.length)));
  return sorted[rank - 1]!;
};

export interface Interval {
  /** The observed mean difference. */
  mean: number;
  low: number;
  high: number;
  /** Pairs resampled (runs × seeds). */
  n: number;
  resamples: number;
  /** The interval contains 0: the data do not tell the two apart. */
  withinNoise: boolean;
}

/**
 * Percentile bootstrap of the mean of paired differences: `diffs` holds one value per (run index, seed) pair,
 * resampled with replacement `resamples` times; the interval is the central `level` of the resampled means.
 */
export const bootstrapMean = (diffs: readonly number[], opts: { resamples?: number; level?: number; seed?: number } = {}): Interval => {
  const resamples = opts.resamples ?? 2000;
  const level = opts.level ?? 0.95;
  // Seeded: Math.random would make the interval change between two readings.
  const rng = mulberry32(opts.seed ?? 1);
  const n = diffs.length;
  if (n === 0) return { mean: NaN, low: NaN, high: NaN, n, resamples, withinNoise: true };
  const means = new Float64Array(resamples);
  for (let b = 0; b < resamples; b++) {
    let s = 0;
    for (let i = 0; i < n; i++) s += diffs[Math.floor(rng() * n)]!;
    means[b] = s / n;
  }
  const sorted = [...means].sort((a, b) => a - b);
  const low = quantile(sorted, (1 - level) / 2);
  const high = quantile(sorted, 1 - (1 - level) / 2);
  return { mean: mean(diffs), low, high, n, resamples, withinNoise: low <= 0 && high >= 0 };
};

/** How many times each value occurs, in first-seen order. */
export const countBy = (values: readonly string[]): [string, number][] => {
  const counts = new Map<string, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  return [...counts];
};
