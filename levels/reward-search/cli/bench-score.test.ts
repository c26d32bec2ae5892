import { cpSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readFinalScores } from "../../../src/store/final-scores.ts";
import { noiseLine } from "../../../src/report/compare/strategy-bench.ts";
import { benchBudgets, benchDiffs, benchRows, benchScoreOf, runMeanOf, type BenchScore } from "./bench-score.ts";

/** One run's score of `task` whose per-seed F are `fs` (sparse 0, human 100 on every seed). */
const score = (strategy: string, run: number, fs: number[], task = "hopper", cached = 0): BenchScore => {
  const perSeed = fs.map((f, i) => ({ seed: 1000 + 8 * i, fitness: f, sparse: 0, human: 100 }));
  return {
    strategy,
    run,
    task,
    spent: 4,
    envSteps: 4 * 2048,
    steps: 2048,
    scoredSteps: 1_000_000,
    wallS: 10,
    commit: "abc",
    cache: { trainings: 4, cached },
    mean: runMeanOf(perSeed),
    seeds: perSeed.length,
    perSeed,
  };
};

describe("the strategy bench's figures", () => {
  it("a row's figures are over runs, each run's seeds averaged first; wall times only for runs that trained", () => {
    const rows = benchRows(
      [score("eureka", 0, [10, 20, 30]), score("eureka", 1, [40, 50, 60]), score("eureka", 2, [0, 0, 0], "hopper", 2)],
      ["eureka"],
      ["hopper"],
    );
    const e = rows.find((r) => r.row === "eureka")!;
    expect(e.figures.map((f) => f.label)).toEqual(["F", "F − F_sparse", "F − F_human", "normalised"]);
    // Run means 20, 50, 0: n is 3 runs, the std is over runs.
    expect(e.figures[0]).toMatchObject({ n: 3, mean: 70 / 3 });
    expect(e.figures[0]!.std).toBeCloseTo(Math.sqrt(((20 - 70 / 3) ** 2 + (50 - 70 / 3) ** 2 + (70 / 3) ** 2) / 2), 12);
    expect(e.figures[1]).toMatchObject({ mean: 70 / 3, n: 3 });
    expect(e.figures[3]!.mean).toBeCloseTo(0.7 / 3, 12);
    expect(e.perRun).toEqual([20, 50, 0]);
    // Run 2's F equals the sparse reward's (0) exactly: flagged.
    expect(e.asSparse).toEqual([false, false, true]);
    expect(e.wall).toEqual({ meanS: 10, trained: 2, cacheHit: 1, unknown: 0 });
    expect(rows.find((r) => r.row === "human")!.figures[0]).toMatchObject({ n: 3, mean: 100 });
    expect(benchBudgets([score("eureka", 0, [1])], ["hopper"])).toEqual([
      "hopper: final trainings trained at 2,048 env steps, NOT the task's scored budget (1,000,000)",
    ]);
  });

  it("two runs give no interval and no normalised score, each saying why", () => {
    const e = benchRows([score("eureka", 0, [10, 20, 30]), score("eureka", 1, [40, 50, 60])], ["eureka"], ["hopper"]).find((r) => r.row === "eureka")!;
    expect(e.figures[0]).toMatchObject({ n: 2, mean: 35, why: "2 runs: no interval below 3 independent runs" });
    expect(e.figures[0]!.ci95).toBeUndefined();
    expect(e.figures[3]).toMatchObject({ mean: null, why: "2 runs with all three trainings known: undefined below 3" });
  });

  it("pairs two strategies' F by run, seeds averaged: agreeing seeds do not make runs that disagree look apart", () => {
    // a − b per seed: run 0 +3 +3 +3, run 1 −2 −2 −2, run 2 +3 +3 +3, run 3 −2 −2 −2.
    const gaps = [3, -2, 3, -2];
    const a = gaps.map((_, r) => score("a", r, [10, 10, 10]));
    const b = gaps.map((g, r) => score("b", r, [10 - g, 10 - g, 10 - g]));
    const [d] = benchDiffs([...a, ...b], ["a", "b"], ["hopper"]);
    expect(d!.interval).toMatchObject({ mean: 0.5, n: 4, unit: "run", withinNoise: true });
    expect(d!.interval.low).toBeLessThan(-1);
    expect(noiseLine("hopper", [d!])).toMatch(/^hopper: the strategies do not differ beyond noise .*\(n 4 runs\)/);
    const c = gaps.map((_, r) => score("c", r, [9.5, 9.5, 9.5]));
    const [e] = benchDiffs([...a, ...c], ["a", "c"], ["hopper"]);
    expect(e!.interval).toMatchObject({ n: 4, low: 0.5, high: 0.5, withinNoise: false });
  });

  it("reads a schema-2 file's seeds (F of the three rewards per fresh seed), none dropped", () => {
    const d = mkdtempSync(join(tmpdir(), "hexa-bench-v2-"));
    cpSync(join(import.meta.dirname, "../../../test/fixtures/final-scores-v2"), d, { recursive: true });
    const s = benchScoreOf(readFinalScores(d)!.levels[0]!, "eureka", 0, { wallS: 1, commit: null, cache: null });
    expect(s.perSeed).toEqual([
      { seed: 1000064, fitness: 92.8, sparse: 57, human: 92.8 },
      { seed: 1000072, fitness: 93.2, sparse: 92.8566, human: 92.8666 },
      { seed: 1000080, fitness: 92.91, sparse: 22.21, human: 63.3 },
    ]);
    expect(s).toMatchObject({ steps: 4096, scoredSteps: null, envSteps: 16384 });
  });
});
