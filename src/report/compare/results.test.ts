import { describe, expect, it } from "vitest";
import type { FinalScore } from "../../store/final-scores.ts";
import { compareResults } from "./results.ts";
import { renderMarkdown } from "./render.ts";

/** A run's final score of cartpole: headline F per seed `fs` (null: that measurement unknown), a second figure 10 × its mean. */
const final = (fs: (number | null)[]): FinalScore => {
  const known = fs.filter((x): x is number => x !== null);
  const m = known.length ? known.reduce((a, b) => a + b, 0) / known.length : null;
  return {
    level: "cartpole",
    measure: "m",
    headline: "f",
    figures: { f: { label: "F", mean: m, n: known.length }, g: { label: "G", mean: m === null ? null : 10 * m, n: known.length } },
    perSeed: fs.map((f, i) => ({ seed: 100 + i, f })),
    spent: 4,
    detail: {},
  };
};

const run = (r: number, fs: (number | null)[] | undefined) => ({
  run: r,
  dir: `d${r}`,
  stream: [],
  tokens: 0,
  costUsd: 0,
  unpricedCalls: 0,
  wallMs: 0,
  ...(fs === undefined ? {} : { final: [final(fs)] }),
});

describe("compare's final figures", () => {
  it("each figure over runs in the runs' order, a run without a score as null, mean ± std over the defined ones", () => {
    const [c] = compareResults([{ id: "c1", label: "x", runs: [run(0, [0.5]), run(1, [null]), run(2, [1.5]), run(3, undefined)] }], ["cartpole"], "c1");
    const f = c!.levels[0]!.final!;
    expect(f.figures.map((x) => x.label)).toEqual(["F", "G"]);
    expect(f.figures[0]!.perRun).toEqual([0.5, null, 1.5, null]);
    expect(f.figures[0]!.mean).toBeCloseTo(1, 12);
    expect(f.figures[0]!.std).toBeCloseTo(Math.SQRT1_2, 12);
    expect(f.figures[1]!.perRun).toEqual([5, null, 15, null]);
    expect(f.spent).toEqual([4, 4, 4, 0]);
  });

  it("pairs a cell's headline with the baseline's on (run, seed), each run's pairs averaged: a constant gap gives a point interval", () => {
    const base = { id: "c1", label: "base", runs: [run(0, [1, 2, 3]), run(1, [4, 5, 6]), run(2, [0, 0, 0])] };
    // Run 1's second seed is unknown in the other cell: that pair is left out, the rest pair seed by seed.
    const other = { id: "c2", label: "other", runs: [run(0, [3, 4, 5]), run(1, [6, null, 8]), run(2, [2, 2, 2])] };
    const [, c] = compareResults([base, other], ["cartpole"], "c1");
    expect(c!.levels[0]!.vsBaseline!.final).toMatchObject({ mean: 2, low: 2, high: 2, n: 3, unit: "run", seeds: 8, withinNoise: false });
    const md = renderMarkdown(
      { config: "x.yaml", grid: "method=a,b", runs: 3, heldOutSeeds: {}, baseline: { id: "c1", label: "base" }, skipped: [] },
      compareResults([base, other], ["cartpole"], "c1"),
    );
    expect(md).toContain("| cell | level | F | G | F per run | Δ F vs c1, 95% CI | spent per run |");
    expect(md).toContain("+2.00 [2.00, 2.00] (n 3 runs (8 seeds))");
  });

  it("bootstraps over runs, not seeds: seeds that agree within a run do not narrow the interval past the runs' spread", () => {
    // Every seed of a run differs from the baseline by the run's own gap: +4, −2, +4, −2 (20 seeds each).
    const gaps = [4, -2, 4, -2];
    const base = { id: "c1", label: "base", runs: gaps.map((_, r) => run(r, Array(20).fill(0))) };
    const other = { id: "c2", label: "other", runs: gaps.map((g, r) => run(r, Array(20).fill(g))) };
    const d = compareResults([base, other], ["cartpole"], "c1")[1]!.levels[0]!.vsBaseline!.final!;
    expect(d).toMatchObject({ mean: 1, n: 4, unit: "run", seeds: 80, withinNoise: true });
    // Resampling 80 seeds as if independent gives about [0.33, 1.67]; four runs span −2 … +4.
    expect(d.low).toBeLessThanOrEqual(-0.5);
    expect(d.high).toBeGreaterThanOrEqual(2.5);
  });

  it("fewer than 3 runs give no interval, and the table says so", () => {
    const base = { id: "c1", label: "base", runs: [run(0, [1, 2, 3]), run(1, [4, 5, 6])] };
    const other = { id: "c2", label: "other", runs: [run(0, [3, 4, 5]), run(1, [6, 7, 8])] };
    const res = compareResults([base, other], ["cartpole"], "c1");
    expect(res[1]!.levels[0]!.vsBaseline!.final).toMatchObject({ mean: 2, n: 2, low: NaN, high: NaN, withinNoise: true });
    const md = renderMarkdown({ config: "x.yaml", grid: "method=a,b", runs: 2, heldOutSeeds: {}, baseline: { id: "c1", label: "base" }, skipped: [] }, res);
    expect(md).toContain("+2.00, no interval (2 runs: no interval below 3 independent runs)");
  });
});
