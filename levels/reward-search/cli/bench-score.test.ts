import { cpSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readFinalScores } from "../../../src/store/final-scores.ts";
import { noiseLine } from "../../../src/report/compare/strategy-bench.ts";
import { benchBudgets, benchDiffs, benchRows, benchScoreOf, type BenchScore } from "./bench-score.ts";

/** One run's score of `task` whose per-seed F are `fs` (sparse 0, human 100 on every seed). */
const score = (strategy: string, run: number, fs: number[], task = "hopper"): BenchScore => ({
  strategy,
  run,
  task,
  spent: 4,
  envSteps: 4 * 2048,
  steps: 2048,
  scoredSteps: 1_000_000,
  wallS: 10,
  perSeed: fs.map((f, i) => ({ seed: 1000 + 8 * i, fitness: f, sparse: 0, human: 100 })),
});

describe("the strategy bench's figures", () => {
  it("a row leads with F over every (run, fresh seed) measurement, then its paired differences and the normalised score", () => {
    const rows = benchRows([score("eureka", 0, [10, 20, 30]), score("eureka", 1, [40, 50, 60])], ["eureka"], ["hopper"]);
    const e = rows.find((r) => r.row === "eureka")!;
    expect(e.figures.map((f) => f.label)).toEqual(["F", "F − F_sparse", "F − F_human", "normalised"]);
    expect(e.figures[0]).toMatchObject({ n: 6, mean: 35 });
    expect(e.figures[0]!.std).toBeCloseTo(Math.sqrt(1750 / 5), 12);
    expect(e.figures[1]).toMatchObject({ mean: 35, n: 6 });
    expect(e.figures[2]).toMatchObject({ mean: -65, n: 6 });
    expect(e.figures[3]!.mean).toBeCloseTo(0.35, 12);
    expect(e.perRun).toEqual([20, 50]);
    expect(e.envSteps).toEqual([8192, 8192]);
    // The references: sparse 0 and human 100, the human row's gap over sparse its F − F_sparse.
    expect(rows.find((r) => r.row === "human")!.figures[0]).toMatchObject({ n: 6, mean: 100 });
    expect(rows.find((r) => r.row === "human")!.figures[1]).toMatchObject({ mean: 100 });
    expect(rows.find((r) => r.row === "sparse")!.figures[3]).toMatchObject({ mean: 0 });
    expect(benchBudgets([score("eureka", 0, [1])], ["hopper"])).toEqual([
      "hopper: final trainings trained at 2,048 env steps, NOT the task's scored budget (1,000,000)",
    ]);
  });

  it("pairs two strategies' F by run and fresh seed: a constant gap is beyond noise, a sign-flipping one is not", () => {
    const a = [score("a", 0, [1, 2, 3]), score("a", 1, [4, 5, 6])];
    const b = [score("b", 0, [0.5, 1.5, 2.5]), score("b", 1, [3.5, 4.5, 5.5])];
    const [d] = benchDiffs([...a, ...b], ["a", "b"], ["hopper"]);
    expect(d!.interval).toMatchObject({ n: 6, low: 0.5, high: 0.5, withinNoise: false });
    expect(noiseLine("hopper", [d!])).toMatch(/^hopper: differ beyond noise: a − b 0\.50 \[0\.50, 0\.50\] \(n 6\)/);
    const c = [score("c", 0, [2, 1, 4]), score("c", 1, [3, 6, 5])];
    const [e] = benchDiffs([...a, ...c], ["a", "c"], ["hopper"]);
    expect(e!.interval.withinNoise).toBe(true);
    expect(noiseLine("hopper", [e!])).toMatch(/^hopper: the strategies do not differ beyond noise/);
  });

  it("reads a schema-2 file's seeds (F of the three rewards per fresh seed), none dropped", () => {
    const d = mkdtempSync(join(tmpdir(), "hexa-bench-v2-"));
    cpSync(join(import.meta.dirname, "../../../test/fixtures/final-scores-v2"), d, { recursive: true });
    const s = benchScoreOf(readFinalScores(d)!.levels[0]!, "eureka", 0, 1);
    expect(s.perSeed).toEqual([
      { seed: 1000064, fitness: 92.8, sparse: 57, human: 92.8 },
      { seed: 1000072, fitness: 93.2, sparse: 92.8566, human: 92.8666 },
      { seed: 1000080, fitness: 92.91, sparse: 22.21, human: 63.3 },
    ]);
    expect(s).toMatchObject({ steps: 4096, scoredSteps: null, envSteps: 16384 });
  });
});
