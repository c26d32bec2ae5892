import { describe, expect, it } from "vitest";
import { createRng } from "../../../src/util/rng.ts";
import { getTask } from "../tasks/index.ts";
import { baseOf, composeTerms } from "../heuristic/terms.ts";
import { libraryTerms } from "../heuristic/term-library.ts";
import { coverageScore, heuristicProposer } from "./heuristic-proposer.ts";
import type { CandidateView } from "../../../src/search/proposer.ts";
import type { RewardProposeContext } from "../search/evaluator.ts";

const task = getTask("cartpole");
const lib = libraryTerms(task);
const compose = (d: Record<string, number>) => composeTerms("cartpole", lib, d);
const instance = task.generate(0);
const ctx = (over: Partial<RewardProposeContext> = {}, seed = 1): RewardProposeContext => ({ task, instance, seen: new Set(), rng: createRng(seed), ...over });
const view = (index: number, design: Record<string, number>, fitness: number | null = 100): CandidateView => ({
  index,
  thought: "",
  code: compose(design),
  design,
  fitness,
  feedback: "",
});

describe("heuristic proposer (no LLM)", () => {
  it("self-evaluation is a deterministic score of the code: coverage of the library's base terms", () => {
    // cartpole's base terms in the library: alive (from its fell / out_of_bounds flags), upright (theta)
    expect(Object.keys(baseOf(lib)).sort()).toEqual(["alive", "upright"]);
    expect(coverageScore(lib, compose({ alive: 1, upright: 0.5 }))).toBe(1);
    expect(coverageScore(lib, compose({ alive: 1 }))).toBe(0);
    expect(coverageScore(lib, compose({ alive: 1, upright: 0.5, calm: 0.05 }))).toBeCloseTo(0.9, 12);
    expect(coverageScore(lib, "function reward() { return { total: 0, components: {} }; }")).toBe(-1);
  });

  it("the first initial design is the library's base terms; mutations keep or change the term set as asked", async () => {
    const p = heuristicProposer();
    expect((await p.propose("initial", ctx())).design).toEqual(baseOf(lib));
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
      // calm is the only cartpole term none of them uses: always in; every term at the library's weight, not a shown one
      const weightOf = Object.fromEntries(lib.map((t) => [t.name, t.weight]));
      expect(d.calm).toBe(weightOf.calm);
      for (const [name, w] of Object.entries(d)) expect(w).toBe(weightOf[name]);
      expect(out.thought).toContain("a different form from #0, #3, #5");
    }
  });

  it("avoids a code already tried", async () => {
    const p = heuristicProposer();
    const seen = new Set([compose(baseOf(lib))]);
    const out = await p.propose("initial", ctx({ seen }));
    expect(seen.has(out.code)).toBe(false);
  });

  it.each(["hopper", "half_cheetah", "walker2d", "pendulum", "inverted_pendulum"])(
    "%s: the starting reward is built from library terms, not the hand-written reward's code",
    async (id) => {
      const t = getTask(id);
      const terms = libraryTerms(t);
      const out = await heuristicProposer().propose("initial", { task: t, instance: t.generate(0), seen: new Set(), rng: createRng(1) });
      expect(out.code).not.toBe(t.humanReward);
      expect(Object.keys(out.design!).length).toBeGreaterThan(1);
      // Every line of the code is a library term at its weight.
      for (const [name, w] of Object.entries(out.design!)) {
        const term = terms.find((x) => x.name === name)!;
        expect(term).toBeDefined();
        expect(out.code).toContain(`const ${name} = ${Number(w.toPrecision(4))} * (${term.expr});`);
      }
    },
  );

  it("the library is chosen by the task's names and its goal sentence, not by its id", () => {
    const layout = (goal: string, discrete = false) => ({
      observation: ["body_angle", "torso_angle", "torso_angular_velocity"],
      info: ["x_velocity", "y_velocity", "healthy"],
      actionNames: ["a0", "a1"],
      description: `${discrete ? "Actions: discrete choices.\n" : ""}Goal: ${goal}`,
    });
    const of = (l: ReturnType<typeof layout>) => Object.fromEntries(libraryTerms(l).map((x) => [x.name, x]));
    const fwd = of(layout("run forward (+x)."));
    expect(fwd.progress).toMatchObject({ expr: "info.x_velocity", base: true });
    expect(fwd.alive).toMatchObject({ expr: "(info.healthy) ? 1 : 0", base: true });
    expect(fwd.upright).toMatchObject({ expr: "-(nextObs.torso_angle ** 2)", base: true });
    expect(fwd.calm?.base).toBe(false);
    expect(fwd.effort).toMatchObject({ expr: "-(action.a0 ** 2 + action.a1 ** 2)", base: true });
    expect(of(layout("run BACKWARD (−x).")).progress!.expr).toBe("-info.x_velocity");
    expect(of(layout("walk along +y.")).progress!.expr).toBe("info.y_velocity");
    expect(of(layout("run forward.", true)).effort).toBeUndefined();
  });
});
