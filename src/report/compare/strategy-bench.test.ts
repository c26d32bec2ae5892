import { describe, expect, it } from "vitest";
import { bootstrapMean } from "../../util/stats.ts";
import { noiseLine, renderBenchMarkdown, type BenchDiff, type BenchRow } from "./strategy-bench.ts";

const diff = (a: string, b: string, xs: number[]): BenchDiff => ({ task: "hopper", a, b, interval: bootstrapMean(xs, { seed: 1, unit: "run", minN: 3 }) });

describe("the strategy bench's verdict and table", () => {
  it("a pair differs beyond noise only when its interval excludes 0 over at least three runs", () => {
    expect(noiseLine("hopper", [diff("a", "b", [0.5, 0.5, 0.5])])).toMatch(/^hopper: differ beyond noise: a − b 0\.50 \[0\.50, 0\.50\] \(n 3 runs\)/);
    expect(noiseLine("hopper", [diff("a", "b", [1, -1, 2, -2])])).toMatch(/^hopper: the strategies do not differ beyond noise/);
    expect(noiseLine("hopper", [diff("a", "b", [1, 1])])).toBe(
      "hopper: too few runs to tell (2 runs: no interval below 3 independent runs): a − b 1.00 no interval (n 2 runs).",
    );
  });

  it("the table leads with F and its interval, then each figure, an undefined one as n/a with its why", () => {
    const row: BenchRow = {
      task: "hopper",
      row: "eureka",
      figures: [
        { label: "F", mean: 1.5, std: 0.5, ci95: [1, 2], n: 6 },
        { label: "normalised", mean: null, n: 6, why: "not told apart" },
      ],
      perRun: [1, 2],
      asSparse: [false, true],
      trained: [4, 4],
      envSteps: [8192, null],
      wall: { meanS: 10, trained: 1, cacheHit: 1, unknown: 0 },
    };
    const header = { budget: 4, runs: 2, trainSteps: 2048, finalTrainings: 3, proposer: "p", wallS: 1, command: "c", budgets: ["hopper: at 2,048"] };
    const md = renderBenchMarkdown(header, [row]);
    expect(md).toContain("| task | reward | n | F (95 % interval) | normalised | F per run |");
    expect(md).toContain(
      "| hopper | eureka | 6 | 1.50 ± 0.50 [1.00, 2.00] | n/a: not told apart | 1.00, 2.00 (= sparse) | 4, 4 | 8,192 | 10 s (1 run); 1 with cache hits, not timed |",
    );
    expect(md).toContain("- hopper: at 2,048");
  });
});
