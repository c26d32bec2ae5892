import { describe, expect, it } from "vitest";
import { breakdownLines } from "./breakdown-text.ts";
import { type CriteriaTree, parseCriteria } from "./criteria.ts";
import { type NodeScore, scoreTree } from "./tree-score.ts";

const leaf = (id: string, extra: object = {}) => ({ id, name: `leaf ${id}`, metric: "m", threshold: "t", partial: "p", ...extra });

/** P2P's example: 1 -> 2, 1 = (1.1, 1.2), 2 = 2.1 -> 2.2. */
const walkAndStop = (): CriteriaTree =>
  parseCriteria({
    order: "sequential",
    children: [
      { id: "1", name: "locomotion", order: "independent", children: [leaf("1.1"), leaf("1.2")] },
      { id: "2", name: "goal", order: "sequential", children: [leaf("2.1"), leaf("2.2")] },
    ],
  });

const r = (id: string, score: number, passed = score === 1, extra: object = {}) => ({ id, value: score * 2, score, passed, note: `n${id}`, ...extra });
const node = (s: { nodes: NodeScore[] }, id: string) => s.nodes.find((n) => n.id === id)!;

describe("scoreTree", () => {
  it("weights P2P's example equally per level and gates 2.2 on 2.1 (P2P's own numbers)", () => {
    const s = scoreTree(walkAndStop(), [r("1.1", 1), r("1.2", 0.52), r("2.1", 0.16), r("2.2", 1)]);
    expect(node(s, "1.1").share).toBe(0.25);
    expect(node(s, "1").score).toBeCloseTo(0.76);
    expect(node(s, "1").contribution).toBeCloseTo(0.38);
    expect(node(s, "2.2").leaf!.status).toBe("SKIP");
    expect(node(s, "2.2").contribution).toBe(0);
    expect(node(s, "2.2").rule).toMatch(/gated by 2\.1: its score 0\.160 is not above 50 %/);
    expect(s.score).toBeCloseTo(0.25 + 0.13 + 0.04);
  });

  it("counts a sequential step only above 50 % of its weight: 0.5 gates, 0.51 does not", () => {
    const at = (x: number) => scoreTree(walkAndStop(), [r("1.1", 1), r("1.2", 1), r("2.1", x), r("2.2", 1)]);
    expect(node(at(0.5), "2.2").leaf!.status).toBe("SKIP");
    expect(node(at(0.51), "2.2").leaf!.status).toBe("PASS");
    expect(at(0.51).score).toBeCloseTo(0.5 + 0.25 * 0.51 + 0.25);
  });

  it("gates a whole group: a top-level step below half skips every leaf under the next one", () => {
    const s = scoreTree(walkAndStop(), [r("1.1", 0.4), r("1.2", 0.4), r("2.1", 1), r("2.2", 1)]);
    expect(node(s, "2").skipped).toBe(true);
    expect(node(s, "2").rule).toMatch(/gated by 1:/);
    expect(["2.1", "2.2"].map((id) => node(s, id).leaf!.status)).toEqual(["SKIP", "SKIP"]);
    expect(s.score).toBeCloseTo(0.2);
  });

  it("normalises given weights among siblings", () => {
    const t = parseCriteria({ order: "independent", children: [leaf("1", { weight: 3 }), leaf("2", { weight: 1 })] });
    const s = scoreTree(t, [r("1", 1), r("2", 0)]);
    expect(node(s, "1").share).toBe(0.75);
    expect(s.score).toBe(0.75);
  });

  it("a must-keep leaf that fails, or is skipped, makes the behaviour score 0 and says so", () => {
    const t = parseCriteria({ order: "sequential", children: [leaf("1"), leaf("2"), leaf("3", { mustKeep: true })] });
    const failed = scoreTree(t, [r("1", 1), r("2", 1), r("3", 0.9, false)]);
    expect(failed.sum).toBeCloseTo(2 / 3 + 0.3);
    expect(failed.score).toBe(0);
    expect(failed.rules).toEqual(["must-keep leaf 3 (leaf 3) is FAIL: the behaviour scores 0"]);
    const skipped = scoreTree(t, [r("1", 1), r("2", 0.1), r("3", 1)]);
    expect(node(skipped, "3").leaf!.status).toBe("SKIP");
    expect(skipped.score).toBe(0);
    expect(scoreTree(t, [r("1", 1), r("2", 1), r("3", 1)]).score).toBe(1);
  });

  it("a missing result is FAIL with tag missing; an extra one is ignored and listed", () => {
    const s = scoreTree(walkAndStop(), [r("1.1", 1), r("2.1", 1), r("2.2", 1), r("9", 1), { score: 1 }]);
    expect(node(s, "1.2").leaf!.result.tags).toEqual(["missing"]);
    expect(node(s, "1.2").leaf!.status).toBe("FAIL");
    expect(s.extras).toEqual([
      { id: "9", note: "no leaf of the tree has this id" },
      { id: null, note: expect.stringMatching(/no usable id/) },
    ]);
    // group 1 at exactly 50 % gates group 2
    expect(node(s, "2").skipped).toBe(true);
    expect(s.score).toBe(0.25);
  });

  it.each([
    ["NaN", Number.NaN, "nan"],
    ["Infinity", Number.POSITIVE_INFINITY, "nan"],
    ["above 1", 1.5, "range"],
    ["below 0", -0.1, "range"],
    ["a string", "1", "shape"],
  ])("a score that is %s counts 0 with its tag", (_what, score, tag) => {
    const s = scoreTree(walkAndStop(), [r("1.1", 1), { id: "1.2", score, passed: true, value: 0 }, r("2.1", 1), r("2.2", 1)], {});
    expect(node(s, "1.2").score).toBe(0);
    expect(node(s, "1.2").leaf!.result.tags).toEqual([tag]);
    expect(node(s, "1.2").leaf!.status).toBe("FAIL");
    expect(s.score).toBe(0.25);
  });

  it("two results for one leaf count 0 (tag duplicate); numeric ids match; inconsistent pass/score is flagged, kept", () => {
    const t = parseCriteria({ order: "independent", children: [leaf("1"), leaf("2")] });
    const s = scoreTree(t, [r("1", 1), r("1", 1), { id: 2, score: 0.4, passed: true }]);
    expect(node(s, "1").leaf!.result.tags).toEqual(["duplicate"]);
    expect(node(s, "2").leaf!.result).toMatchObject({ score: 0.4, passed: true, tags: ["inconsistent"] });
    expect(s.score).toBeCloseTo(0.2);
  });

  it("a run fault scores every leaf 0 with its tag", () => {
    const s = scoreTree(walkAndStop(), [r("1.1", 1)], { fault: { tag: "timeout", message: "ran past 1000 ms" } });
    expect(s.score).toBe(0);
    expect(s.nodes.filter((n) => n.leaf).map((n) => n.leaf!.result.tags)).toEqual([["timeout"], ["timeout"], ["timeout"], ["timeout"]]);
    expect(s.rules[0]).toMatch(/failed \(timeout\): ran past 1000 ms/);
  });

  it("weights all zero (a tree not from parseCriteria) share equally and say so", () => {
    const t: CriteriaTree = {
      version: 1,
      order: "independent",
      children: [
        { ...leaf("1"), weight: 0, mustKeep: false },
        { ...leaf("2"), weight: 0, mustKeep: false },
      ],
    };
    const s = scoreTree(t, [r("1", 1), r("2", 0)]);
    expect(s.score).toBe(0.5);
    expect(node(s, "1").rule).toMatch(/all 0: shared equally/);
  });

  it("prints PASS / FAIL / SKIP per leaf, each node's score out of its share and the rule that applied", () => {
    const s = scoreTree(walkAndStop(), [r("1.1", 1), r("1.2", 0.52), r("2.1", 0.16), r("2.2", 1, true, { note: "\u001b[2Jx" })]);
    expect(breakdownLines(s)).toEqual([
      "score 0.420 (top level sequential)",
      "1 locomotion (independent) [0.380/0.500]",
      "  1.1 leaf 1.1 PASS [0.250/0.250] value 2 — n1.1",
      "  1.2 leaf 1.2 FAIL [0.130/0.250] value 1.04 — n1.2",
      "2 goal (sequential) [0.040/0.500]",
      "  2.1 leaf 2.1 FAIL [0.040/0.250] value 0.32 — n2.1",
      "  2.2 leaf 2.2 SKIP [0.000/0.250] — gated by 2.1: its score 0.160 is not above 50 % of its weight",
    ]);
  });
});
