import { describe, expect, it } from "vitest";
import { createInstance } from "../instance.ts";
import { createRng } from "../../../src/util/rng.ts";
import { applyEvent, EMPTY_BANK, foldEvents, type Bank } from "../../../src/store/bank.ts";
import { readCertified } from "../certified-seeds.ts";
import { labelTrajectories } from "../../../agents/evolver-labels.ts";
import { evolveHeuristic, hintsFromBank, regionOf } from "./evolver.ts";
import { runHeuristicEpisode, type HeuristicHint } from "./agent.ts";
import type { Trajectory } from "../../../src/store/trajectory.ts";

const LEVEL = "two_body_problem";
const seeds = readCertified(LEVEL)!.seeds.map((s) => s.seed);
const ticking = () => {
  let t = 0;
  return () => (t += 1);
};
const run = (seed: number, hints: HeuristicHint[] = []) =>
  runHeuristicEpisode({ instance: createInstance(LEVEL, seed), rng: createRng(seed), now: ticking(), hints });
const instanceOf = (t: Trajectory) => createInstance(t.level, t.seed);
const update = (round: number, bank: Bank, ts: Trajectory[], ids?: string[]) =>
  evolveHeuristic({ round, level: LEVEL, bank, labelled: labelTrajectories(ts, ids), instanceOf });

const train = seeds.slice(0, 8).map((s) => run(s));
const round1 = update(1, EMPTY_BANK, train);
const bank = foldEvents(round1);
const inside = (v: number, [lo, hi]: readonly [number, number]) => v >= lo - 1e-9 && v <= hi + 1e-9;

/** The same trajectory as if `used` turns had been played (r(τ) reads the turns actually used). */
const playedFor = (t: Trajectory, used: number): Trajectory => ({
  ...t,
  steps: Array.from({ length: used }, (_, k) => ({ ...t.steps[k % t.steps.length]!, turn: k + 1 })),
});

describe("evolveHeuristic", () => {
  it("distils solved seeds into weighted region skills that round-trip through hintsFromBank", () => {
    expect(train.every((t) => t.success)).toBe(true);
    expect(round1.every((e) => e.type === "add")).toBe(true);
    expect(bank.skills.length).toBeGreaterThan(0);
    expect(bank.skills.reduce((n, s) => n + s.evidence.count, 0)).toBe(train.length);
    for (const s of bank.skills) {
      expect(regionOf(s)).toMatchObject({ relativeTo: "green_ball" });
      expect(s.weight).toBe(Math.min(1, (s.evidence.sumR / s.evidence.count + 1) / 2));
    }
    const hints = hintsFromBank(bank, createInstance(LEVEL, seeds[8]!));
    expect(hints).toHaveLength(bank.skills.length);
    expect(hints.every((h) => h.kind === "region" && h.relativeTo === "green_ball")).toBe(true);
  });

  it("makes runHeuristicEpisode try the hinted regions first, and solve new seeds in no more turns", () => {
    const fresh = seeds.slice(8, 20);
    let plain = 0;
    let hinted = 0;
    for (const seed of fresh) {
      const inst = createInstance(LEVEL, seed);
      const hints = hintsFromBank(bank, inst);
      const t = run(seed, hints);
      const first = t.steps.find((s) => s.tool === "simulate_action")!.args as { x: number; y: number; radius: number };
      const g = inst.scene.green_ball!;
      const hit = hints.some(
        (h) => h.kind === "region" && inside(first.x - g.x, h.dx) && inside(first.y - g.y, h.dy) && (!h.radius || inside(first.radius, h.radius)),
      );
      expect(hit, `seed ${seed}: first placement ${JSON.stringify(first)} outside every hinted region`).toBe(true);
      expect(t.success).toBe(true);
      hinted += t.turns;
      plain += run(seed).turns;
    }
    expect(hinted).toBeLessThanOrEqual(plain);
  });

  it("re-cites re-observed regions, prunes unobserved light ones, records failures as avoid regions", () => {
    const again = seeds.slice(8, 11).map((s) => run(s, hintsFromBank(bank, createInstance(LEVEL, s))));
    const light: Bank = { ...bank, skills: bank.skills.map((s, i) => (i === bank.skills.length - 1 ? { ...s, weight: 0.2 } : s)) };
    const lightId = light.skills.at(-1)!.id;
    const failed: Trajectory = { ...playedFor(run(seeds[11]!), 25), success: false, turns: 25, action: { x: 4.5, y: -4.5, radius: 0.3 }, stopReason: "finish" };
    const events = update(2, light, [...again, failed], ["t9", "t10", "t11", "t12"]);
    const after = events.reduce(applyEvent, light);
    expect(events).toContainEqual(expect.objectContaining({ type: "prune", id: lightId, why: "low_weight" }));
    const recited = events.filter((e) => e.type === "reweight" || e.type === "revise" || e.type === "merge");
    expect(recited.length).toBeGreaterThan(0);
    for (const e of recited) expect(e.evidence.every((id) => ["t9", "t10", "t11"].includes(id))).toBe(true);
    expect(after.mistakes).toHaveLength(1);
    const m = after.mistakes[0]!;
    expect(m).toMatchObject({ weight: 1 / 3, evidence: { sumR: -0.5, count: 1 }, sourceSeeds: [seeds[11]] }); // mistakeWeight: one cited failure
    const avoid = hintsFromBank(after, createInstance(LEVEL, seeds[12]!)).filter((h) => h.kind === "avoid");
    expect(avoid).toHaveLength(1);
    expect(after.skills.every((s) => s.weight >= 0.3 || s.generation === 2)).toBe(true);
  });

  it("reweights a region re-observed at its centre with the running mean of all its evidence", () => {
    const s = bank.skills[0]!;
    const r = regionOf(s)!;
    const mid = ([lo, hi]: readonly [number, number]) => (lo + hi) / 2;
    const t = train[0]!;
    const g = instanceOf(t).scene.green_ball!;
    const slow: Trajectory = { ...playedFor(t, 10), turns: 10, action: { x: g.x + mid(r.dx), y: g.y + mid(r.dy), radius: mid(r.radius!) } };
    const events = update(2, bank, [slow], ["t20"]);
    const sum = s.evidence.sumR + 0.5;
    const count = s.evidence.count + 1;
    expect(events).toEqual([
      expect.objectContaining({ type: "reweight", id: s.id, evidence: ["t20"], weight: (sum / count + 1) / 2, evidenceState: { sumR: sum, count } }),
    ]);
  });

  it("keeps the region in the typed payload and sentences in the text; still reads a version-1 entry's text encoding", () => {
    for (const e of [...bank.skills, ...bank.mistakes]) {
      expect(e.payload?.region).toEqual(regionOf(e));
      const text = e.kind === "skill" ? [e.title, e.principle, e.whenToApply, e.example ?? ""] : [e.description, e.rootCause, e.correction];
      expect(text.join(" ")).not.toMatch(/[{}]/);
    }
    const [a] = bank.skills;
    const { payload, ...v1 } = a!;
    const old = { ...v1, example: `hint: ${JSON.stringify(payload!.region)}` };
    expect(regionOf(old)).toEqual(regionOf(a!));
  });

  it("merges overlapping regions and ignores entries without a readable region", () => {
    const [a] = bank.skills;
    const twin = { ...a!, id: "s0_9", evidence: { sumR: 1, count: 1 } };
    const { payload: _typed, ...untyped } = a!;
    const junk = { ...untyped, id: "s0_8", example: "hint: {broken" };
    const withTwin: Bank = { skills: [...bank.skills, twin, junk], mistakes: [] };
    const events = update(2, withTwin, []);
    expect(events).toContainEqual(expect.objectContaining({ type: "merge", from: expect.arrayContaining([a!.id, "s0_9"]) }));
    expect(regionOf(junk)).toBeUndefined();
    const after = events.reduce(applyEvent, withTwin);
    expect(hintsFromBank(after, createInstance(LEVEL, seeds[0]!))).toHaveLength(after.skills.length - 1);
  });
});
