import { describe, expect, it } from "vitest";
import { createRng } from "../../../src/util/rng.ts";
import { getTask } from "../tasks/index.ts";
import { baseDesign, composeReward } from "../heuristic/terms.ts";
import { coverageScore, heuristicProposer } from "./heuristic-proposer.ts";
import type { CandidateView } from "../../../src/search/proposer.ts";
import type { RewardProposeContext } from "../search/evaluator.ts";

const task = getTask("cartpole");
const instance = task.generate(0);
const ctx = (over: Partial<RewardProposeContext> = {}, seed = 1): RewardProposeContext => ({ task, instance, seen: new Set(), rng: createRng(seed), ...over });
const view = (index: number, design: Record<string, number>, fitness: number | null = 100): CandidateView => ({
  index,
  thought: "",
  code: composeReward("cartpole", design),
  design,
  fitness,
  feedback: "",
});

describe("heuristic proposer (no LLM)", () => {
  it("self-evaluation is a deterministic score of the code: coverage of the library's base terms", () => {
    // cartpole's base terms: alive, upright
    expect(coverageScore("cartpole", composeReward("cartpole", { alive: 1, upright: 0.5 }))).toBe(1);
    expect(coverageScore("cartpole", composeReward("cartpole", { alive: 1 }))).toBe(0);
    expect(coverageScore("cartpole", composeReward("cartpole", { alive: 1, upright: 0.5, calm: 0.05 }))).toBeCloseTo(0.9, 12);
    expect(coverageScore("cartpole", "function reward() { return { total: 0, components: {} }; }")).toBe(-1);
  });

  it("the first initial design is the library's base terms; mutations keep or change the term set as asked", async () => {
    const p = heuristicProposer();
    expect((await p.propose("initial", ctx())).design).toEqual(baseDesign("cartpole"));
    const parent = view(0, { alive: 1, upright: 0.5 });
    for (let seed = 1; seed <= 8; seed++) {
      const par = (await p.propose("parameter", ctx({ parent }, seed))).design!;
      expect(Object.keys(par).sort()).toEqual(["alive", "upright"]);
      const st = (await p.propose("structural", ctx({ parent }, seed))).design!;
      expect(Object.keys(st).sort()).not.toEqual(["alive", "upright"]);
    }
  });

  it("crossover takes every term from one of the elites; path reasoning starts from the best ancestor", async () => {
    const p = heuristicProposer();
    const a = view(0, { alive: 1, upright: 0.5 });
    const b = view(1, { alive: 2, centre: 0.3, fail: 5 });
    for (let seed = 1; seed <= 8; seed++) {
      const d = (await p.propose("crossover", ctx({ parent: a, elites: [a, b] }, seed))).design!;
      for (const [k, w] of Object.entries(d)) expect([a.design![k], b.design![k]]).toContain(w);
    }
    const out = await p.propose("path", ctx({ parent: a, ancestors: [a, view(2, { alive: 1, fail: 5 }, 300), view(3, { alive: 1 }, 50)] }));
    expect(out.thought).toContain("best of 3 ancestor(s) is #2");
  });

  it("different thought: a term set unlike the current reward's and every other branch's, at the library's default weights", async () => {
    const p = heuristicProposer();
    const cur = view(0, { alive: 1, upright: 0.5 });
    const others = [view(3, { alive: 2, centre: 0.3 }), view(5, { upright: 0.2, fail: 5 })];
    const shownSets = [cur, ...others].map((c) => Object.keys(c.design!).sort().join(","));
    for (let seed = 1; seed <= 8; seed++) {
      const out = await p.propose("different", ctx({ parent: cur, others }, seed));
      const d = out.design!;
      expect(Object.keys(d).length).toBeGreaterThan(0);
      expect(shownSets).not.toContain(Object.keys(d).sort().join(","));
      // calm is the only cartpole term none of them uses: always in
      expect(d.calm).toBe(0.05);
      expect(d.alive === undefined || d.alive === 1).toBe(true); // the library's weight, not a shown one
      expect(out.thought).toContain("a different form from #0, #3, #5");
    }
  });

  it("avoids a code already tried", async () => {
    const p = heuristicProposer();
    const seen = new Set([composeReward("cartpole", baseDesign("cartpole"))]);
    const out = await p.propose("initial", ctx({ seen }));
    expect(seen.has(out.code)).toBe(false);
  });
});
