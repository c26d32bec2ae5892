import { describe, expect, it } from "vitest";
import { bootstrapMean, bootstrapUnits, countBy, mean, quantile, std, unitsText } from "./stats.ts";

describe("stats", () => {
  it("mean and sample std by hand", () => {
    // 0.5, 0.7, 0.9: mean 0.7; squared deviations 0.04 + 0 + 0.04 = 0.08, / (3 − 1) = 0.04, sqrt = 0.2.
    expect(mean([0.5, 0.7, 0.9])).toBeCloseTo(0.7, 12);
    expect(std([0.5, 0.7, 0.9])).toBeCloseTo(0.2, 12);
    expect(std([0.4])).toBe(0);
  });

  it("no values: mean, quantile and the bootstrap interval are NaN; std is 0", () => {
    expect(mean([])).toBeNaN();
    expect(std([])).toBe(0);
    expect(quantile([], 0.5)).toBeNaN();
    expect(bootstrapMean([])).toMatchObject({ mean: NaN, low: NaN, high: NaN, n: 0, withinNoise: true });
  });

  it("one value gives no interval, with the reason: a one-point interval would never contain 0", () => {
    expect(bootstrapMean([0])).toMatchObject({ mean: 0, low: NaN, high: NaN, n: 1, withinNoise: true, why: "1 value: no interval below 2 independent values" });
  });

  it("bootstrapUnits averages each unit's measurements first and resamples units; below 3 units no interval", () => {
    // Seeds agree within a run, runs disagree: the interval is the runs' spread, not the seeds' agreement.
    const runs = [Array(10).fill(3), Array(10).fill(-3), Array(10).fill(3), Array(10).fill(-3), Array(10).fill(3)];
    const b = bootstrapUnits(runs, { seed: 2 });
    expect(b).toMatchObject({ mean: 0.6, n: 5, unit: "run", seeds: 50, withinNoise: true });
    expect(b.low).toBeLessThan(-1);
    expect(b.high).toBeGreaterThan(2);
    expect(bootstrapMean(runs.flat(), { seed: 2 }).high - bootstrapMean(runs.flat(), { seed: 2 }).low).toBeLessThan(b.high - b.low);
    expect(bootstrapUnits([[1, 2], [], [3]])).toMatchObject({ mean: 2.25, n: 2, seeds: 3, low: NaN, why: "2 runs: no interval below 3 independent runs" });
    expect(unitsText(b)).toBe("n 5 runs (50 seeds)");
  });

  it("nearest-rank quantiles", () => {
    const xs = Array.from({ length: 2000 }, (_, i) => i);
    // 2.5% of 2000 is rank 50 (value 49); 97.5% is rank 1950 (value 1949).
    expect(quantile(xs, 0.025)).toBe(49);
    expect(quantile(xs, 0.975)).toBe(1949);
  });

  it("the bootstrap interval on known data matches the hand-computed normal interval", () => {
    // 100 paired differences: 30 × +1, 70 × 0. Mean 0.3; the bootstrap distribution of the mean is
    // Binomial(100, 0.3)/100 with sd sqrt(0.3 · 0.7 / 100) = 0.0458, so the 95% interval is about
    // 0.3 ± 1.96 · 0.0458 = [0.210, 0.390]; the binomial's exact 2.5% / 97.5% points are 0.21 and 0.39.
    const diffs = [...Array(30).fill(1), ...Array(70).fill(0)];
    const ci = bootstrapMean(diffs, { resamples: 2000, seed: 7 });
    expect(ci.mean).toBeCloseTo(0.3, 12);
    expect(ci.low).toBeGreaterThanOrEqual(0.2);
    expect(ci.low).toBeLessThanOrEqual(0.22);
    expect(ci.high).toBeGreaterThanOrEqual(0.38);
    expect(ci.high).toBeLessThanOrEqual(0.4);
    expect(ci.withinNoise).toBe(false);
    expect(ci.n).toBe(100);
  });

  it("a constant difference has a zero-width interval; a symmetric one is within noise; seeded = reproducible", () => {
    expect(bootstrapMean([0.5, 0.5, 0.5])).toMatchObject({ mean: 0.5, low: 0.5, high: 0.5, withinNoise: false });
    const sym = [1, -1, 1, -1, 0, 0, 1, -1];
    const a = bootstrapMean(sym, { seed: 3 });
    expect(a.withinNoise).toBe(true);
    expect(a.low).toBeLessThan(0);
    expect(bootstrapMean(sym, { seed: 3 })).toEqual(a);
  });
});

describe("countBy", () => {
  it("counts each value in first-seen order", () => {
    expect(countBy(["b", "a", "b", "c", "b"])).toEqual([
      ["b", 3],
      ["a", 1],
      ["c", 1],
    ]);
  });
});
