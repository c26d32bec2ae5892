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
  /** The observed mean difference (NaN for no values). */
  mean: number;
  /** NaN where no interval is given (`why` says why). */
  low: number;
  high: number;
  /** Independent units resampled: values for `bootstrapMean`, runs (their seeds averaged) for `bootstrapUnits`. */
  n: number;
  /** What one of the n is: "value", or "run" (with `seeds` measurements nested in the runs). */
  unit: string;
  /** Measurements nested in the units (runs × seeds), for `bootstrapUnits`. */
  seeds?: number;
  resamples: number;
  /** The interval contains 0, or there is none: the data do not tell the two apart. */
  withinNoise: boolean;
  /** Why there is no interval (too few units), when there is none. */
  why?: string;
}

/** Fewest values an interval is given for: one value has no spread to resample (a one-point "interval" says nothing). */
export const MIN_INTERVAL_N = 2;
/** Fewest independent runs a comparison of methods gives an interval for (docs/spec/method.md §8). */
export const MIN_COMPARED_UNITS = 3;

type BootstrapOpts = { resamples?: number; level?: number; seed?: number; minN?: number; unit?: string };

/**
 * Percentile bootstrap of the mean of `xs`, each an independent unit, resampled with replacement `resamples` times;
 * the interval is the central `level` of the resampled means. Fewer than `minN` (default MIN_INTERVAL_N) values
 * give no interval: NaN bounds and the reason in `why`.
 */
export const bootstrapMean = (xs: readonly number[], opts: BootstrapOpts = {}): Interval => {
  const resamples = opts.resamples ?? 2000;
  const level = opts.level ?? 0.95;
  const unit = opts.unit ?? "value";
  const minN = Math.max(MIN_INTERVAL_N, opts.minN ?? MIN_INTERVAL_N);
  const n = xs.length;
  if (n < minN) {
    const why = `${n} ${unit}${n === 1 ? "" : "s"}: no interval below ${minN} independent ${unit}s`;
    return { mean: mean(xs), low: NaN, high: NaN, n, unit, resamples, withinNoise: true, why };
  }
  // Seeded: Math.random would make the interval change between two readings.
  const rng = mulberry32(opts.seed ?? 1);
  const means = new Float64Array(resamples);
  for (let b = 0; b < resamples; b++) {
    let s = 0;
    for (let i = 0; i < n; i++) s += xs[Math.floor(rng() * n)]!;
    means[b] = s / n;
  }
  const sorted = [...means].sort((a, b) => a - b);
  const low = quantile(sorted, (1 - level) / 2);
  const high = quantile(sorted, 1 - (1 - level) / 2);
  return { mean: mean(xs), low, high, n, unit, resamples, withinNoise: low <= 0 && high >= 0 };
};

/**
 * The bootstrap of a comparison over what varies (docs/spec/method.md §8): `units` holds each independent unit's
 * measurements (a run's paired differences on its seeds, which share the run's search and so are not
 * independent); each unit is averaged first, then the unit means are resampled. Units without a measurement are
 * left out; fewer than `minN` (default MIN_COMPARED_UNITS) units give no interval.
 */
export const bootstrapUnits = (units: readonly (readonly number[])[], opts: BootstrapOpts = {}): Interval => {
  const measured = units.filter((u) => u.length > 0);
  const unit = opts.unit ?? "run";
  const b = bootstrapMean(
    measured.map((u) => mean(u)),
    { ...opts, unit, minN: opts.minN ?? MIN_COMPARED_UNITS },
  );
  return { ...b, seeds: measured.reduce((s, u) => s + u.length, 0) };
};

/** `n 5 runs (15 seeds)` or `n 1 value`: what an interval's n counts. */
export const unitsText = (i: Pick<Interval, "n" | "unit" | "seeds">): string =>
  `n ${i.n} ${i.unit}${i.n === 1 ? "" : "s"}${i.seeds !== undefined && i.seeds !== i.n ? ` (${i.seeds} seeds)` : ""}`;

/** How many times each value occurs, in first-seen order. */
export const countBy = (values: readonly string[]): [string, number][] => {
  const counts = new Map<string, number>();
  for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1);
  return [...counts];
};
