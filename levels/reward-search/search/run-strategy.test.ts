import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { callRewardTool } from "../tools/reward-tool.ts";
import { train, type RewardSession } from "../tools/session.ts";
import { REWARD_TOOLS } from "../task-env.ts";
import { testTrainer } from "./test-trainer.ts";
import { getTask } from "../tasks/index.ts";
import { searchOfRun, trainingShare } from "./run-strategy.ts";
import { RunConfig } from "../../../src/loop/run-config.ts";
import { RewardSearchConfig } from "../config.ts";
import type { TrainerPool } from "../trainer/pool.ts";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

describe("a rounds run's share of search.budget", () => {
  const phases = [[7], [0, 1], [2, 3]];
  it("splits what is left over the episodes still to play, the first ones one more", () => {
    // B = 10 over 5 episodes: 2 each; the offline episode spent 1, so round 1 splits 9 over 4 (3, 2).
    expect(trainingShare(10, phases, 7, 0)).toBe(2);
    expect([0, 1].map((s) => trainingShare(10, phases, s, 1))).toEqual([3, 2]);
    // Round 2 splits what is left (10 − 1 − 5 = 4) over its 2 episodes: the last phase sums to exactly what is left.
    expect([2, 3].map((s) => trainingShare(10, phases, s, 6))).toEqual([2, 2]);
    expect([2, 3].map((s) => trainingShare(11, phases, s, 6))).toEqual([3, 2]);
    // Over-spent (not possible through the session's cap, but a hand-edited record): nothing left, never negative.
    expect(trainingShare(10, phases, 2, 12)).toBe(0);
  });
  it("gives a held-out seed (not played by the rounds) no share", () => {
    expect(trainingShare(10, phases, 42, 0)).toBeUndefined();
  });
  it("trains exactly B whatever earlier phases leave unspent, when the last phase spends its shares", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 1, maxLength: 5 }),
        fc.integer({ min: 0, max: 40 }),
        fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 20, maxLength: 20 }),
        (sizes, extra, use) => {
          let next = 0;
          const ps = sizes.map((n) => Array.from({ length: n }, () => next++));
          const budget = next + extra;
          let spent = 0;
          ps.forEach((p, g) => {
            const shares = p.map((seed) => trainingShare(budget, ps, seed, spent)!);
            const last = g === ps.length - 1;
            // Earlier phases commit early (use ∈ [0, 1] of each share); the last one spends every share.
            spent += shares.reduce((n, s, i) => n + (last ? s : Math.floor(s * use[i % use.length]!)), 0);
          });
          expect(spent).toBe(budget);
        },
      ),
    );
  });
});

describe("equal budgets", () => {
  it("under a share every training, train_policy and finish alike, is the quick budget; without one, what was asked", async () => {
    const task = getTask("cartpole");
    const trainer = testTrainer();
    const session = (maxTrainings?: number): RewardSession => ({
      task,
      instance: task.generate(0),
      trainer,
      budgets: { train: 8, finish: 32 },
      checkTransitions: 16,
      trainings: 0,
      ...(maxTrainings === undefined ? {} : { maxTrainings }),
    });
    const code = "function reward(){return {total:1,components:{alive:1}}}";
    const shared = session(3);
    await callRewardTool(REWARD_TOOLS, shared, "train_policy", { code, steps: 32 });
    await callRewardTool(REWARD_TOOLS, shared, "train_policy", { code });
    await callRewardTool(REWARD_TOOLS, shared, "finish", { code });
    expect(trainer.jobs.map((j) => j.steps)).toEqual([8, 8, 8]);
    const free = session();
    await callRewardTool(REWARD_TOOLS, free, "train_policy", { code, steps: 16 });
    await callRewardTool(REWARD_TOOLS, free, "finish", { code });
    expect(trainer.jobs.slice(3).map((j) => j.steps)).toEqual([16, 32]);
  });

  it("eureka and rf-agent of one budget train the same instance with the same trainings × steps", async () => {
    const c = RewardSearchConfig.parse({ trainSteps: 24 });
    const sent = await Promise.all(
      (["eureka", "rf-agent"] as const).map(async (method) => {
        const trainer = testTrainer();
        const config = RunConfig.parse({
          family: "reward-search",
          levels: ["pendulum"],
          method,
          agent: "heuristic",
          search: { budget: 7 },
          seeds: { offset: 2 },
        });
        const dir = mkdtempSync(join(tmpdir(), "hexa-equal-budget-"));
        await searchOfRun(config, c, trainer as unknown as TrainerPool)!.run({ dir, log: () => {} } as never);
        return { steps: trainer.jobs.reduce((n, j) => n + j.steps, 0), instances: new Set(trainer.jobs.map((j) => JSON.stringify(j.instance))) };
      }),
    );
    expect(sent[0]!.steps).toBe(7 * 24);
    expect(sent[1]!.steps).toBe(7 * 24);
    expect([...sent[0]!.instances]).toEqual([JSON.stringify(getTask("pendulum").generate(2))]);
    expect(sent[1]!.instances).toEqual(sent[0]!.instances);
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

describe("auto-finish under a share", () => {
  it("a solving full-budget training ends the episode only with the share's last training (at once without a share)", async () => {
    const task = getTask("cartpole");
    const solving = testTrainer();
    const trainer = {
      train: async (...a: Parameters<typeof solving.train>) => {
        const o = await solving.train(...a);
        return o.kind === "result" ? { ...o, result: { ...o.result, final: { ...o.result.final, fitness: task.fitness.solved + 1 } } } : o;
      },
    };
    const session = (maxTrainings?: number): RewardSession => ({
      task,
      instance: task.generate(0),
      trainer,
      budgets: { train: 8, finish: 8 },
      checkTransitions: 16,
      trainings: 0,
      ...(maxTrainings === undefined ? {} : { maxTrainings }),
    });
    const code = "function reward(){return {total:1,components:{alive:1}}}";
    const shared = session(3);
    const ends: boolean[] = [];
    for (let i = 0; i < 3; i++) ends.push((await callRewardTool(REWARD_TOOLS, shared, "train_policy", { code })).ends !== undefined);
    expect(ends).toEqual([false, false, true]);
    expect((await callRewardTool(REWARD_TOOLS, session(), "train_policy", { code })).ends).toMatchObject({ reason: "success", success: true });
  });
});
