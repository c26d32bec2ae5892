import { describe, expect, it } from "vitest";
import { finalFigures, NOT_DISTINGUISHABLE, type SeedF } from "./final-figures.ts";

const seeds = (f: number[], s: number[], h: (number | null)[]): SeedF[] => f.map((x, i) => ({ fitness: x, sparse: s[i]!, human: h[i]! }));

/**
 * Hand-computed figures (docs/spec/reward-search.md §7). With three seeds every one of the 27 equally likely
 * resamples of seeds has probability ≥ 1/27 > 2.5 %, so a percentile bootstrap interval runs from the smallest to the
 * largest value any multiset of the seeds gives: for a mean, the smallest and largest value.
 */
describe("the final score's figures", () => {
  // F_sparse 10 on every seed; F_human − F_sparse = 10, 20, 30; F − F_sparse = 5, 15, −5.
  const three = seeds([15, 25, 5], [10, 10, 10], [20, 30, 40]);

  it("F: mean, sample std and the interval of the mean over every seed", () => {
    const { fitness } = finalFigures(three);
    expect(fitness).toEqual({ label: "F", mean: 15, std: 10, ci95: [5, 25], n: 3 });
  });

  it("the paired differences from the sparse and human rewards, seed by seed", () => {
    const { vsSparse, vsHuman } = finalFigures(three);
    expect(vsSparse).toEqual({ label: "F − F_sparse", mean: 5, ci95: [-5, 15], n: 3 });
    expect(vsHuman).toEqual({ label: "F − F_human", mean: -15, ci95: [-35, -5], n: 3 });
  });

  it("normalised on task means, (15 − 10) / |30 − 10| = 0.25, with the paired bootstrap's extremes as its interval", () => {
    const { normalised } = finalFigures(three);
    // Multisets of seeds a, b, c (F − F_sparse, F_human − F_sparse) = (5, 10), (15, 20), (−5, 30): the ratio of
    // sums ranges from ccc −15/90 to bbb 45/60.
    expect(normalised.mean).toBeCloseTo(0.25, 12);
    expect(normalised.n).toBe(3);
    expect(normalised.ci95![0]).toBeCloseTo(-1 / 6, 12);
    expect(normalised.ci95![1]).toBeCloseTo(0.75, 12);
  });

  it("keeps a seed where F_human ≤ F_sparse: it counts in every figure and in n", () => {
    // The third seed's human reward lost to the sparse one (8 < 10); F − F_sparse 5, 15, 2; F − F_human −5, −5, 4.
    const kept = seeds([15, 25, 12], [10, 10, 10], [20, 30, 8]);
    const f = finalFigures(kept);
    expect(f.fitness.n).toBe(3);
    expect(f.vsSparse).toMatchObject({ ci95: [2, 15], n: 3 });
    expect(f.vsSparse.mean).toBeCloseTo(22 / 3, 12);
    expect(f.vsHuman).toMatchObject({ ci95: [-5, 4], n: 3 });
    expect(f.vsHuman.mean).toBeCloseTo(-2, 12);
    // Gaps 10, 20, −2 give an interval [−2, 20] that contains 0: not distinguishable, so no normalised value.
    expect(f.normalised).toMatchObject({ label: "normalised", mean: null, n: 3 });
    expect(f.normalised.why).toContain(NOT_DISTINGUISHABLE);
    expect(f.normalised.why).toBe(`${NOT_DISTINGUISHABLE}: F_human − F_sparse 9.33 [-2.00, 20.00]`);
  });

  it("a seed where F_human ≤ F_sparse under a clear gap elsewhere still enters the normalised score's means", () => {
    // Gaps 30, 30, 30, 30 and one −1: the interval of the gap's mean excludes 0, so the score is defined, over 5 seeds.
    const f = finalFigures(seeds([20, 20, 20, 20, 20], [0, 0, 0, 0, 10], [30, 30, 30, 30, 9]));
    expect(f.normalised.n).toBe(5);
    // (mean F − mean F_sparse) / |mean F_human − mean F_sparse| = (20 − 2) / (25.8 − 2).
    expect(f.normalised.mean).toBeCloseTo(18 / 23.8, 12);
  });

  it("without a hand-written reward: F and F − F_sparse, no F − F_human and no normalised score, each saying why", () => {
    const f = finalFigures(seeds([3, 4], [1, 1], [null, null]));
    expect(f.fitness.mean).toBe(3.5);
    expect(f.vsSparse.mean).toBe(2.5);
    expect(f.vsHuman).toMatchObject({ mean: null, n: 0, why: "the task has no hand-written reward" });
    expect(f.normalised).toMatchObject({ mean: null, why: "the task has no hand-written reward" });
  });

  it("one seed: F and the differences without an interval, and no normalised score, each saying why", () => {
    const f = finalFigures(seeds([15], [10], [20]));
    expect(f.fitness).toEqual({ label: "F", mean: 15, std: 0, why: "1 seed: no interval below 2 independent seeds", n: 1 });
    expect(f.vsSparse).toMatchObject({ mean: 5, n: 1, why: "1 seed: no interval below 2 independent seeds" });
    expect(f.vsSparse.ci95).toBeUndefined();
    expect(f.normalised).toEqual({ label: "normalised", mean: null, n: 1, why: "1 seed with all three trainings known: undefined below 2" });
  });

  it("is deterministic: the same F values give the same intervals", () => {
    const a = seeds([1.3, 2.9, 0.4, 5.5], [0.2, 0.1, 0.3, 0.2], [3, 4, 2.5, 6]);
    expect(finalFigures(a)).toEqual(finalFigures(a));
  });
});
