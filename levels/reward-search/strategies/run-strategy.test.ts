import { describe, expect, it } from "vitest";
import { compareResults } from "../../../src/report/compare/results.ts";
import { train, type RewardSession } from "../../../tools/reward-search/session.ts";
import { getTask } from "../index.ts";
import { heldOutEvalSeeds, trainingShare } from "./run-strategy.ts";

describe("a rounds run's share of rewardSearch.budget", () => {
  it("splits the budget over the episodes in play order, the first B mod E one more, summing to B", () => {
    const order = [7, 0, 1, 2];
    expect(order.map((s) => trainingShare(10, order, s))).toEqual([3, 3, 2, 2]);
    expect(order.map((s) => trainingShare(3, order, s))).toEqual([1, 1, 1, 0]);
    expect(order.map((s) => trainingShare(16, order, s))).toEqual([4, 4, 4, 4]);
  });
  it("gives a held-out seed (not played by the rounds) no share", () => {
    expect(trainingShare(10, [7, 0], 42)).toBeUndefined();
  });
});

describe("the final evaluation's seeds", () => {
  it("are three seeds that no training or evaluation of the search instance used", () => {
    const inst = getTask("cartpole").generate(5);
    const seeds = heldOutEvalSeeds(inst);
    expect(seeds).toHaveLength(3);
    for (const s of seeds) expect([inst.trainSeed, ...inst.evalSeeds]).not.toContain(s);
  });
});

describe("an episode's training cap", () => {
  it("refuses a training past the share without sending it, with the budget_exceeded kind", async () => {
    let sent = 0;
    const task = getTask("cartpole");
    const s: RewardSession = {
      task,
      instance: task.generate(0),
      trainer: {
        train: async () => {
          sent++;
          return { kind: "error", error: { kind: "internal", message: "not a real trainer" }, cached: false, jobDir: null };
        },
      },
      budgets: { train: 8, finish: 8 },
      checkTransitions: 16,
      trainings: 0,
      maxTrainings: 1,
    };
    await train(s, "function reward(){return {total:0,components:{}}}", 8, "t");
    const refused = await train(s, "function reward(){return {total:0,components:{}}}", 8, "t");
    expect(sent).toBe(1);
    expect(s.trainings).toBe(1);
    expect(refused).toMatchObject({ kind: "error", error: { kind: "budget_exceeded" } });
  });
});

describe("compare's final-score figure", () => {
  it("keeps one entry per run in the runs' order, a run without a score as null, mean ± std over the defined ones", () => {
    const run = (r: number, score: number | null | undefined) => ({
      run: r,
      dir: `d${r}`,
      stream: [],
      tokens: 0,
      costUsd: 0,
      unpricedCalls: 0,
      wallMs: 0,
      ...(score === undefined ? {} : { final: [{ level: "cartpole", score, spent: 4, measure: "m", raw: { name: "F", value: score === null ? 7 : score * 10 } }] }),
    });
    const [c] = compareResults([{ id: "c1", label: "x", runs: [run(0, 0.5), run(1, null), run(2, 1.5), run(3, undefined)] }], ["cartpole"], "c1");
    const f = c!.levels[0]!.final!;
    expect(f.perRun).toEqual([0.5, null, 1.5, null]);
    expect(f.mean).toBeCloseTo(1, 12);
    expect(f.std).toBeCloseTo(Math.SQRT1_2, 12);
    expect(f.spent).toEqual([4, 4, 4, 0]);
    expect(f.raw).toMatchObject({ name: "F", perRun: [5, 7, 15, null] });
    expect(f.raw!.mean).toBeCloseTo(9, 12);
  });
});
