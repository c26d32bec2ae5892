import { describe, expect, it } from "vitest";
import { BankEvent, byWeight, capEvents, foldEvents, type BankEventInput, type Mistake, type Skill } from "./bank.ts";
import { cite, mistakeWeight, NO_EVIDENCE, weightOf } from "./bank-weights.ts";

const skill = (id: string, weight: number, extra: Partial<Skill> = {}): Skill => ({
  kind: "skill",
  id,
  title: `skill ${id}`,
  principle: "Drop weight on the arm right of the pivot.",
  whenToApply: "A ball rests on a lever.",
  sourceType: "contrastive",
  sourceSeeds: [1],
  generation: 1,
  weight,
  parents: [],
  evidence: NO_EVIDENCE,
  ...extra,
});
const mistake = (id: string, weight: number): Mistake => ({
  kind: "mistake",
  id,
  description: "The ball lands short.",
  rootCause: "Assumed a bounce carries far.",
  correction: "Start higher.",
  sourceSeeds: [2],
  generation: 1,
  weight,
  parents: [],
  evidence: NO_EVIDENCE,
});
type WithoutVersion<T> = T extends unknown ? Omit<T, "schemaVersion"> : never;
const ev = (e: WithoutVersion<BankEventInput>): BankEvent => BankEvent.parse({ schemaVersion: 1, ...e });

describe("event-sourced bank", () => {
  const events = [
    ev({ type: "add", round: 1, entry: skill("s1", 0.9), evidence: ["t1"] }),
    ev({ type: "add", round: 1, entry: skill("s2", 0.6) }),
    ev({ type: "add", round: 1, entry: mistake("m1", 0.7) }),
    ev({ type: "merge", round: 2, from: ["s1", "s2"], entry: skill("s3", 0.8, { parents: ["s1", "s2"], sourceType: "evolved" }), reason: "same mechanism" }),
    ev({ type: "reweight", round: 2, id: "m1", weight: 0.4, evidenceState: { sumR: -0.4, count: 2 } }),
    ev({ type: "evolver_failure", round: 3, error: "invalid JSON twice" }),
    ev({ type: "prune", round: 3, id: "m1", why: "contradicted" }),
  ];

  it("folds to the bank at any round", () => {
    expect(foldEvents(events, 1).skills.map((s) => s.id)).toEqual(["s1", "s2"]);
    const r2 = foldEvents(events, 2);
    expect(r2.skills.map((s) => [s.id, s.parents])).toEqual([["s3", ["s1", "s2"]]]);
    expect(r2.mistakes[0]).toMatchObject({ id: "m1", weight: 0.4, evidence: { sumR: -0.4, count: 2 } });
    expect(foldEvents(events)).toEqual({ skills: [r2.skills[0]], mistakes: [] });
  });

  it("survives a JSONL round trip", () => {
    const lines = events.map((e) => JSON.stringify(e)).join("\n");
    expect(foldEvents(lines.split("\n").map((l) => BankEvent.parse(JSON.parse(l))))).toEqual(foldEvents(events));
  });

  it("refuses events that name missing entries (a bug, not a skip)", () => {
    expect(() => foldEvents([ev({ type: "prune", round: 1, id: "nope", why: "redundant" })])).toThrow(/prune of missing id 'nope'/);
    expect(() => foldEvents([events[0]!, events[0]!])).toThrow(/add of existing id 's1'/);
    const three = [...events.slice(0, 2), ev({ type: "add", round: 1, entry: skill("s9", 0.5) })];
    expect(() => foldEvents([...three, ev({ type: "merge", round: 2, from: ["s1", "s2"], entry: skill("s9", 0.7) })])).toThrow(/merge into existing id 's9'/);
    expect(() => foldEvents([...three, ev({ type: "revise", round: 2, entry: { ...mistake("s9", 0.5) } })])).toThrow(/revise of missing mistake 's9'/);
  });

  it("enforces the caps by weight and records each pruned id", () => {
    const bank = { skills: [skill("a", 0.2), skill("b", 0.9), skill("c", 0.5)], mistakes: [mistake("x", 0.3), mistake("y", 0.8)] };
    const pruned = capEvents(bank, { skills: 2, mistakes: 1 }, 4);
    expect(pruned.map((e) => (e.type === "prune" ? [e.id, e.why, e.round] : null))).toEqual([
      ["a", "cap", 4],
      ["x", "cap", 4],
    ]);
  });
});

describe("weights (docs/spec/method.md §3)", () => {
  it("maps the mean cited reward to [0.1, 1] and caps partial skills at 0.5", () => {
    expect(weightOf(cite(NO_EVIDENCE, [1, 0.75, 0.5]))).toBeCloseTo((0.75 + 1) / 2, 12);
    expect(weightOf(cite(NO_EVIDENCE, [-0.75, -0.75]))).toBe(0.125);
    expect(weightOf(cite(NO_EVIDENCE, [-1]))).toBe(0.1);
    expect(weightOf(NO_EVIDENCE)).toBe(0.5);
    expect(weightOf(NO_EVIDENCE, { fallbackMeanR: 0.5 })).toBe(0.75);
    expect(weightOf(cite(NO_EVIDENCE, [1]), { partial: true })).toBe(0.5);
  });

  it("recomputes a re-cited entry from all its evidence (running mean)", () => {
    const round1 = cite(NO_EVIDENCE, [1, 1, 1]);
    const round2 = cite(round1, [-0.5]);
    expect(weightOf(round2)).toBeCloseTo((2.5 / 4 + 1) / 2, 12);
  });

  it("weighs mistakes by how many failures cited them, and ranks the more recent first among equals", () => {
    expect([0, 1, 2, 4, 8].map((n) => mistakeWeight(cite(NO_EVIDENCE, Array(n).fill(-0.5))))).toEqual([0.1, 1 / 3, 0.5, 4 / 6, 0.8]);
    const old = { ...mistake("m1_1", 0.5), generation: 1 };
    const recent = { ...mistake("m3_1", 0.5), generation: 3 };
    const heavy = { ...mistake("m0_1", 0.6), generation: 0 };
    expect(byWeight([old, recent, heavy]).map((m) => m.id)).toEqual(["m0_1", "m3_1", "m1_1"]);
  });
});
