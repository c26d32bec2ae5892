/**
 * The calibration bench's statistics (docs/benchmarks/judge-calibration.md): Spearman's rank correlation (ties
 * share their mean rank), the percentile bootstrap of any statistic over independent units (the policies), and
 * the spread of a unit's score over repeated judging. Pure and seeded: the same data give the same numbers.
 */
import { mulberry32 } from "../src/util/rng.ts";
import { quantile, std } from "../src/util/stats.ts";

/** 1-based ranks, tied values sharing the mean of the ranks they span. */
export const ranks = (xs: readonly number[]): number[] => {
  const order = xs.map((x, i) => [x, i] as const).sort((a, b) => a[0] - b[0]);
  const out = new Array<number>(xs.length);
  for (let i = 0; i < order.length; ) {
    let j = i;
    while (j + 1 < order.length && order[j + 1]![0] === order[i]![0]) j++;
    for (let k = i; k <= j; k++) out[order[k]![1]] = (i + j) / 2 + 1;
    i = j + 1;
  }
  return out;
};

/** Pearson's correlation; NaN when either side has no spread or fewer than 2 pairs. */
const pearson = (x: readonly number[], y: readonly number[]): number => {
  const n = x.length;
  if (n < 2) return NaN;
  const mx = x.reduce((s, v) => s + v, 0) / n;
  const my = y.reduce((s, v) => s + v, 0) / n;
  let sxy = 0,
    sxx = 0,
    syy = 0;
  for (let i = 0; i < n; i++) {
    sxy += (x[i]! - mx) * (y[i]! - my);
    sxx += (x[i]! - mx) ** 2;
    syy += (y[i]! - my) ** 2;
  }
  return sxx === 0 || syy === 0 ? NaN : sxy / Math.sqrt(sxx * syy);
};

/** Spearman's ρ: Pearson's correlation of the ranks (ties averaged); NaN when a side is constant. */
export const spearman = (x: readonly number[], y: readonly number[]): number => {
  if (x.length !== y.length) throw new Error(`spearman: ${x.length} values against ${y.length}`);
  return pearson(ranks(x), ranks(y));
};

export interface BootInterval {
  value: number;
  low: number;
  high: number;
  /** Units resampled (policies). */
  n: number;
  resamples: number;
  /** Resamples where the statistic was undefined (NaN: e.g. every resampled policy tied); left out of the interval. */
  undefinedResamples: number;
}

/**
 * The percentile bootstrap of `stat` over `n` independent units: each resample draws n unit indices with
 * replacement; the interval is the central `level` of the defined resampled values (NaN bounds when none is).
 */
export const bootstrapUnits = (
  n: number,
  stat: (units: readonly number[]) => number,
  opts: { resamples?: number; level?: number; seed?: number } = {},
): BootInterval => {
  const resamples = opts.resamples ?? 2000;
  const level = opts.level ?? 0.95;
  const value = stat(Array.from({ length: n }, (_, i) => i));
  const rng = mulberry32(opts.seed ?? 1);
  const values: number[] = [];
  for (let b = 0; b < resamples && n > 0; b++) {
    const v = stat(Array.from({ length: n }, () => Math.floor(rng() * n)));
    if (Number.isFinite(v)) values.push(v);
  }
  values.sort((a, b) => a - b);
  const low = quantile(values, (1 - level) / 2);
  const high = quantile(values, 1 - (1 - level) / 2);
  return { value, low, high, n, resamples: n > 0 ? resamples : 0, undefinedResamples: (n > 0 ? resamples : 0) - values.length };
};

/** Per unit, the sample standard deviation of its scores over the repeats; the mean and the largest over units. */
export const repeatSpread = (perUnit: readonly (readonly number[])[]): { mean: number; max: number; units: number } => {
  const sds = perUnit.filter((r) => r.length > 0).map((r) => std(r));
  return { mean: sds.length ? sds.reduce((s, v) => s + v, 0) / sds.length : NaN, max: sds.length ? Math.max(...sds) : NaN, units: sds.length };
};
