import { describe, expect, it } from "vitest";
import { createRng } from "../../../src/util/rng.ts";
import type { CandidateView } from "../../../src/search/proposer.ts";
import { libraryTerms } from "../heuristic/term-library.ts";
import { composeTerms } from "../heuristic/terms.ts";
import type { RewardProposeContext } from "../search/evaluator.ts";
import { getTask } from "../tasks/index.ts";
import { reflection } from "../tools/feedback.ts";
import type { JobResult } from "../trainer/client.ts";
import { changeText, designInCode, readSignals, sameShape } from "./feedback-signals.ts";
import { heuristicProposer } from "./heuristic-proposer.ts";

const task = getTask("cartpole");
const lib = libraryTerms(task);
const compose = (d: Record<string, number>) => composeTerms("cartpole", lib, d);

/** A training's reflection as tools/feedback.ts writes it: `components` mean per window, F per checkpoint. */
const feedbackOf = (components: Record<string, number[]>, curve: number[]): string => {
  const r: JobResult = {
    final: { fitness: curve.at(-1)!, perSeed: [{ seed: 1, fitness: curve.at(-1)! }] },
    bestCheckpoint: { fitness: Math.max(...curve), step: 100 },
    components: Object.fromEntries(Object.entries(components).map(([k, ms]) => [k, ms.map((m, i) => ({ step: i, mean: m, min: m, max: m }))])),
    episodeLength: [{ step: 1, mean: 20 }],
    fitnessCurve: curve.map((fitness, step) => ({ step, fitness })),
    steps: 1000,
    wallMs: 1,
    policy: "policy.json",
  };
  return reflection(r, 475);
};

const view = (design: Record<string, number>, feedback: string, thought = ""): CandidateView => ({
  index: 0,
  thought,
  code: compose(design),
  design,
  fitness: 100,
  feedback,
});
const ctx = (over: Partial<RewardProposeContext>, seed = 1): RewardProposeContext => ({
  task,
  instance: task.generate(0),
  seen: new Set(),
  rng: createRng(seed),
  ...over,
});

describe("the reward reflection as the heuristic proposer reads it", () => {
  it("reads the components that never changed, the term the hacking alarm names and a falling F curve", () => {
    const s = readSignals(feedbackOf({ centre: [0.1, 0.1, 0.1], upright: [-9, -4, -1] }, [80, 90, 40]));
    expect(s).toEqual({ constant: ["centre"], hacking: "upright", falling: true });
    expect(readSignals(feedbackOf({ alive: [0.5, 1], upright: [0.4, 0.6] }, [10, 40, 80]))).toEqual({ constant: [], hacking: null, falling: false });
  });

  it("a hacking alarm removes the term it names", async () => {
    // centre rose from −5 to −1 carrying ~99% of the magnitude while F fell from 40 to 10.
    const parent = view({ alive: 1, centre: 0.1 }, feedbackOf({ alive: [0.01, 0.01], centre: [-5, -1] }, [40, 10]));
    for (let seed = 1; seed <= 4; seed++) {
      const out = await heuristicProposer().propose("refine", ctx({ parent }, seed));
      expect(out.design).toEqual({ alive: 1 });
      expect(out.thought).toContain("hacking alarm: drop centre");
    }
  });

  it("Eureka's refine of cartpole's survival-led reward keeps alive", async () => {
    // alive carries ~95% of the magnitude (1 while the pole stands, 0 on the step it falls) and F rose: no alarm;
    // under a flat F it is still a survival term, never a hack.
    for (const curve of [
      [20, 90],
      [50, 50],
    ]) {
      const windows = (lo: number) => [0, 1].map((i) => ({ step: i, mean: 0.98, min: lo, max: 1 }));
      const r: JobResult = {
        final: { fitness: curve[1]!, perSeed: [{ seed: 1, fitness: curve[1]! }] },
        bestCheckpoint: { fitness: Math.max(...curve), step: 1 },
        components: { alive: windows(0), upright: [0, 1].map((i) => ({ step: i, mean: -0.05 + 0.02 * i, min: -0.1, max: 0 })) },
        episodeLength: [{ step: 1, mean: 20 }],
        fitnessCurve: curve.map((fitness, step) => ({ step, fitness })),
        steps: 1000,
        wallMs: 1,
        policy: "policy.json",
      };
      const feedback = reflection(r, 475);
      expect(feedback).not.toContain("ALARM");
      const parent = view({ alive: 1, upright: 0.5 }, feedback);
      for (let seed = 1; seed <= 4; seed++)
        expect((await heuristicProposer().propose("refine", ctx({ parent, feedback }, seed))).design).toHaveProperty("alive");
    }
  });

  it("a component that never changed gets its weight raised (parameter) or is dropped (structural); a survival term is left alone", async () => {
    const parent = view({ alive: 1, upright: 0.5 }, feedbackOf({ alive: [1, 1], upright: [-0.3, -0.3] }, [10, 40]));
    const par = await heuristicProposer().propose("parameter", ctx({ parent }));
    expect(par.design).toEqual({ alive: 1, upright: 1 });
    expect(par.thought).toContain("upright never changed: raise it to 1");
    expect(par.thought).not.toContain("alive never changed");
    const st = await heuristicProposer().propose("structural", ctx({ parent }));
    expect(st.design).toEqual({ alive: 1 });
  });

  it("a falling F curve halves the last change the parent's thought records", async () => {
    // The parent came from upright 0.5 → 0.9 and added calm 0.2; its F fell late in training.
    const thought = `refine: rescale upright; change ${changeText({ alive: 1, upright: 0.5 }, { alive: 1, upright: 0.9, calm: 0.2 })}; design …`;
    const parent = view({ alive: 1, upright: 0.9, calm: 0.2 }, feedbackOf({ alive: [0.5, 1], upright: [0.3, 0.6], calm: [0.1, 0.2] }, [10, 90, 30]), thought);
    const out = await heuristicProposer().propose("refine", ctx({ parent }));
    expect(out.design!.alive).toBe(1);
    expect(out.design!.upright).toBeCloseTo(0.7, 12);
    expect(out.design!.calm).toBeCloseTo(0.1, 12);
    expect(out.thought).toContain("F fell late in training: halve the last change (upright, calm)");
    expect(out.thought).toContain("change upright 0.9→0.7, calm 0.2→0.1;");
  });

  it("under RF-Agent the same parent and feedback halve the last change: thought alignment keeps the change record", async () => {
    const p = heuristicProposer();
    const thought = `refine: rescale upright; change ${changeText({ alive: 1, upright: 0.5 }, { alive: 1, upright: 0.9 })}; design alive 1, upright 0.9.`;
    const design = { alive: 1, upright: 0.9 };
    const aligned = await p.align!(compose(design), thought, { task, instance: task.generate(0), rng: createRng(1), design });
    expect(aligned).toBe("The reward sums alive 1, upright 0.9. change upright 0.5→0.9;");
    const feedback = feedbackOf({ alive: [0.5, 1], upright: [0.3, 0.6] }, [10, 90, 30]);
    for (const kind of ["parameter", "path"] as const) {
      const out = await p.propose(kind, ctx({ parent: view(design, feedback, aligned), ancestors: [view(design, feedback, aligned)] }));
      expect(out.thought).toContain("F fell late in training: halve the last change (upright)");
      expect(out.design!.upright).toBeCloseTo(0.7, 12);
    }
  });

  it("crossover and different thought leave out the terms the shown feedback flags", async () => {
    // Both elites carry centre and both trainings say it never changed: crossover leaves it out.
    const flat = feedbackOf({ alive: [0.5, 1], upright: [0.3, 0.6], centre: [-0.2, -0.2] }, [10, 40]);
    const a = { ...view({ alive: 1, upright: 0.5, centre: 0.1 }, flat), index: 1 };
    const b = { ...view({ alive: 2, upright: 1, centre: 0.2 }, flat), index: 2 };
    for (let seed = 1; seed <= 6; seed++) {
      const out = await heuristicProposer().propose("crossover", ctx({ parent: a, elites: [a, b] }, seed));
      expect(out.design).not.toHaveProperty("centre");
      expect(out.thought).toContain("left out by the feedback: centre");
    }
    // calm never changed in the other branch's training: no different form brings it back.
    const other = view({ alive: 1, calm: 0.01 }, feedbackOf({ alive: [0.5, 1], calm: [0.003, 0.003] }, [10, 40]));
    for (let seed = 1; seed <= 8; seed++) {
      const out = await heuristicProposer().propose("different", ctx({ parent: view({ alive: 1, upright: 0.5 }, flat), others: [other] }, seed));
      expect(out.design).not.toHaveProperty("calm");
    }
  });

  it("designs that differ only by a positive scale count as one: none is proposed again", async () => {
    expect(sameShape({ alive: 1, upright: 0.5 }, { alive: 3, upright: 1.5 })).toBe(true);
    expect(sameShape({ alive: 1, upright: 0.5 }, { alive: -1, upright: -0.5 })).toBe(false);
    expect(sameShape({ alive: 1, upright: 0.5 }, { alive: 1, upright: 0.6 })).toBe(false);
    expect(designInCode(compose({ alive: 1.5, upright: 0.25 }))).toEqual({ alive: 1.5, upright: 0.25 });
    // A one-term parent: every rescale of it is the same reward, so the proposer must change the term set.
    const parent = view({ alive: 1 }, feedbackOf({ alive: [0.5, 1] }, [10, 40]));
    for (let seed = 1; seed <= 8; seed++) {
      const out = await heuristicProposer().propose("parameter", ctx({ parent, seen: new Set([compose({ alive: 1 })]) }, seed));
      expect(sameShape({ alive: 1 }, out.design!)).toBe(false);
    }
  });
});
