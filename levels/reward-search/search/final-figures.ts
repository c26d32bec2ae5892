import type { Figure } from "../../../src/store/final-scores.ts";
import { mulberry32 } from "../../../src/util/rng.ts";
import { bootstrapMean, MIN_INTERVAL_N, mean, quantile, std } from "../../../src/util/stats.ts";

/**
 * The figures of a final score (docs/spec/reward-search.md §7) from the F of the final, sparse and human rewards on
 * the same fresh training seeds: F itself; the paired differences F − F_sparse and F − F_human; Eureka's
 * human-normalised score on task means, (mean F − mean F_sparse) / |mean F_human − mean F_sparse|, with a paired
 * bootstrap over the seeds, defined only where the human and sparse rewards are told apart. Every seed counts: a
 * seed where F_human ≤ F_sparse is data, not an outlier.
 */

/** One fresh training seed's F of the three rewards (null: that training failed). */
export type SeedF = {
  fitness: number | null;
  sparse: number | null;
  human: number | null;
};

export interface FinalFigures {
  fitness: Figure;
  vsSparse: Figure;
  vsHuman: Figure;
  normalised: Figure;
}

/** Resamples of every bootstrap here, and its seed: the same F values always give the same intervals. */
const RESAMPLES = 2000;
const BOOTSTRAP_SEED = 1;

export const NOT_DISTINGUISHABLE = "human and sparse rewards are not distinguishable at this budget";

const finite = (x: number | null): x is number => x !== null && Number.isFinite(x);

/** The seeds where every value `pick` reads is known, as tuples. */
const pairs = (seeds: readonly SeedF[], pick: (s: SeedF) => (number | null)[]): number[][] => seeds.map(pick).filter((xs): xs is number[] => xs.every(finite));

/** What one measurement is (a fresh seed; a run, its seeds averaged, where runs are compared), and the fewest that give an interval. */
type Unit = { unit: string; minN: number };
const SEED: Unit = { unit: "seed", minN: MIN_INTERVAL_N };

const meanFigure = (label: string, xs: readonly number[], withStd: boolean, u: Unit): Figure => {
  if (!xs.length) return { label, mean: null, n: 0, why: `no ${u.unit} with both trainings known` };
  const b = bootstrapMean(xs, { resamples: RESAMPLES, seed: BOOTSTRAP_SEED, ...u });
  return {
    label,
    mean: mean(xs),
    ...(withStd ? { std: std(xs) } : {}),
    ...(b.why ? { why: b.why } : { ci95: [b.low, b.high] as [number, number] }),
    n: xs.length,
  };
};

/** (mean f − mean s) / |mean h − mean s| of (f, s, h) triples. */
const normalisedOf = (t: readonly number[][]): number => {
  const [f, s, h] = [0, 1, 2].map((i) => mean(t.map((x) => x[i]!)));
  return (f! - s!) / Math.abs(h! - s!);
};

/** The normalised score and a paired percentile bootstrap over seeds (each resample draws whole (f, s, h) seeds). */
const normalisedFigure = (seeds: readonly SeedF[], humanGap: Figure, u: Unit): Figure => {
  const label = "normalised";
  if (humanGap.mean === null) return { label, mean: null, n: 0, why: humanGap.why ?? "no human reward" };
  const t = pairs(seeds, (s) => [s.fitness, s.sparse, s.human]);
  // One seed tells no spread: neither whether the human and sparse rewards differ nor the score's interval.
  if (t.length < u.minN || !humanGap.ci95)
    return {
      label,
      mean: null,
      n: t.length,
      why: `${t.length} ${u.unit}${t.length === 1 ? "" : "s"} with all three trainings known: undefined below ${u.minN}`,
    };
  const [lo, hi] = humanGap.ci95;
  if (lo <= 0 && hi >= 0)
    return {
      label,
      mean: null,
      n: t.length,
      why: `${NOT_DISTINGUISHABLE}: F_human − F_sparse ${humanGap.mean.toFixed(2)} [${lo.toFixed(2)}, ${hi.toFixed(2)}]`,
    };
  const rng = mulberry32(BOOTSTRAP_SEED);
  const resampled: number[] = [];
  for (let b = 0; b < RESAMPLES; b++) {
    const r = normalisedOf(Array.from({ length: t.length }, () => t[Math.floor(rng() * t.length)]!));
    // 0 / 0 (a resample whose three means coincide) has no ratio; a non-zero gap over 0 sorts to ±Infinity.
    if (!Number.isNaN(r)) resampled.push(r);
  }
  resampled.sort((a, b) => a - b);
  return { label, mean: normalisedOf(t), ci95: [quantile(resampled, 0.025), quantile(resampled, 0.975)], n: t.length };
};

/**
 * The four figures of a task's final score over its fresh seeds (or over runs, each run's seeds averaged, with `u`);
 * a task without a human reward has null `vsHuman` and `normalised`.
 */
export const finalFigures = (seeds: readonly SeedF[], u: Unit = SEED): FinalFigures => {
  const diffs = (other: (s: SeedF) => number | null) => pairs(seeds, (s) => [s.fitness, other(s)]).map(([f, o]) => f! - o!);
  const humanless = seeds.every((s) => s.human === null);
  const noHuman = (label: string): Figure => ({ label, mean: null, n: 0, why: "the task has no hand-written reward" });
  const humanGap = humanless
    ? noHuman("F_human − F_sparse")
    : meanFigure(
        "F_human − F_sparse",
        pairs(seeds, (s) => [s.human, s.sparse]).map(([h, s]) => h! - s!),
        false,
        u,
      );
  return {
    fitness: meanFigure("F", seeds.map((s) => s.fitness).filter(finite), true, u),
    vsSparse: meanFigure(
      "F − F_sparse",
      diffs((s) => s.sparse),
      false,
      u,
    ),
    vsHuman: humanless
      ? noHuman("F − F_human")
      : meanFigure(
          "F − F_human",
          diffs((s) => s.human),
          false,
          u,
        ),
    normalised: normalisedFigure(seeds, humanGap, u),
  };
};
