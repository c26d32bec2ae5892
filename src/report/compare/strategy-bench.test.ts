import { describe, expect, it } from "vitest";
import { benchDiffs, benchRows, noiseLine, type BenchScore } from "./strategy-bench.ts";

/** One run's score of `task` whose per-seed scores are `seeds` (F = 100 × score, sparse 0, human 100). */
const score = (strategy: string, run: number, seeds: number[], task = "hopper"): BenchScore => ({
  strategy,
  run,
  task,
  score: seeds.reduce((a, b) => a + b, 0) / seeds.length,
  fitness: null,
  sparse: 0,
  human: 100,
  spent: 4,
  envSteps: 4 * 2048,
  wallS: 10,
  perSeed: seeds.map((s, i) => ({ trainSeed: 1000 + 8 * i, score: s, fitness: 100 * s, sparse: 0, human: 100 })),
});

describe("the strategy bench's figures", () => {
  it("a row is over every (run, fresh seed) measurement: n, mean ± std, an interval around the mean", () => {
    const rows = benchRows([score("eureka", 0, [1, 2, 3]), score("eureka", 1, [4, 5, 6])], ["eureka"], ["hopper"]);
    const e = rows.find((r) => r.row === "eureka")!;
    expect(e.score).toMatchObject({ n: 6, mean: 3.5, perRun: [2, 5] });
    expect(e.score.std).toBeCloseTo(Math.sqrt(17.5 / 5), 12);
    expect(e.score.low).toBeLessThan(3.5);
    expect(e.score.high).toBeGreaterThan(3.5);
    expect(e.envSteps).toEqual([8192, 8192]);
    expect(rows.find((r) => r.row === "human")!.fitness).toMatchObject({ n: 6, mean: 100 });
  });

  it("pairs two strategies by run and fresh seed: a constant gap is beyond noise, a sign-flipping one is not", () => {
    const a = [score("a", 0, [1, 2, 3]), score("a", 1, [4, 5, 6])];
    const b = [score("b", 0, [0.5, 1.5, 2.5]), score("b", 1, [3.5, 4.5, 5.5])];
    const [d] = benchDiffs([...a, ...b], ["a", "b"], ["hopper"]);
    expect(d!.interval).toMatchObject({ n: 6, low: 0.5, high: 0.5, withinNoise: false });
    expect(d!.interval.mean).toBeCloseTo(0.5, 12);
    expect(noiseLine("hopper", [d!])).toMatch(/^hopper: differ beyond noise: a − b 0\.50 \[0\.50, 0\.50\] \(n 6\)/);
    const c = [score("c", 0, [2, 1, 4]), score("c", 1, [3, 6, 5])];
    const [e] = benchDiffs([...a, ...c], ["a", "c"], ["hopper"]);
    expect(e!.interval.withinNoise).toBe(true);
    expect(noiseLine("hopper", [e!])).toMatch(/^hopper: the strategies do not differ beyond noise/);
    // Two pairs with a constant gap: no verdict from so few.
    const [f] = benchDiffs([score("a", 0, [1, 2]), score("b", 0, [0, 1])], ["a", "b"], ["hopper"]);
    expect(f!.interval.withinNoise).toBe(false);
    expect(noiseLine("hopper", [f!])).toMatch(/^hopper: too few paired scores to tell/);
  });
});
