import { describe, expect, it } from "vitest";
import { leavesOf } from "./criteria.ts";
import { parseNotation } from "./notation.ts";

/** P2P's own example (prompts/judge_author.py), with hexa's must-keep and weight lines on two leaves. */
const P2P_EXAMPLE = `\`\`\`
Structure:
1 -> 2
1 = (1.1, 1.2)
2 = 2.1 -> 2.2

Legend:
1. Locomotion Quality
  1.1 Forward Progress
  1.2 Upright Posture
2. Goal Completion
  2.1 Reach Target
  2.2 Full Stop

Scoring Criteria:
  1.1 Forward Progress
      metric: mean(vx) over all steps
      threshold: >= 0.5 m/s
      partial: linear from 0.0 to threshold
  1.2 Upright Posture
      metric: mean(torso_up_z) over all steps
      threshold: >= 0.85
      partial: linear from 0.5
        to threshold
      must keep: yes
  2.1 Reach Target
      metric: min(dist_to_target) over all steps
      threshold: <= 0.3m
      partial: linear from 2.0m to threshold
      weight: 3
  2.2 Full Stop
      metric: mean(|vx|) over last 20 steps
      threshold: <= 0.1 m/s
      partial: linear from 1.0 to threshold

Definitions:
  vx = obs[N] — forward velocity (m/s)
\`\`\``;

describe("parseNotation", () => {
  it("reads P2P's structure, legend, criteria and definitions into the tree", () => {
    const t = parseNotation(P2P_EXAMPLE);
    expect(t.order).toBe("sequential");
    expect(t.children.map((c) => [c.id, c.name, "order" in c ? c.order : null])).toEqual([
      ["1", "Locomotion Quality", "independent"],
      ["2", "Goal Completion", "sequential"],
    ]);
    expect(leavesOf(t.children).map((l) => [l.id, l.weight, l.mustKeep])).toEqual([
      ["1.1", undefined, false],
      ["1.2", undefined, true],
      ["2.1", 3, false],
      ["2.2", undefined, false],
    ]);
    expect(leavesOf(t.children)[1]!.partial).toBe("linear from 0.5 to threshold");
    expect(t.definitions).toBe("vx = obs[N] — forward velocity (m/s)");
  });

  it("reads an independent top level of leaves", () => {
    const t = parseNotation(
      "Structure:\n(1, 2)\nScoring Criteria:\n1 A\n metric: a\n threshold: b\n partial: c\n2 B\n metric: a\n threshold: b\n partial: c\n",
    );
    expect(t.order).toBe("independent");
    expect(t.children.map((c) => c.name)).toEqual(["A", "B"]);
  });

  it.each([
    ["no structure", "Legend:\n1. a", /Structure: no top-level line/],
    ["a mixed expression", "Structure:\n1 -> (2, 3)", /mixes -> with groups/],
    ["a leaf without criteria", "Structure:\n1 -> 2\nScoring Criteria:\n1 A\n metric: a\n threshold: b\n partial: c", /no entry for leaf 2/],
    ["a leaf without a threshold", "Structure:\n1\nScoring Criteria:\n1 A\n metric: a\n partial: c", /Scoring Criteria 1: no threshold line/],
    [
      "an expansion nothing reaches",
      "Structure:\n1\n3 = (3.1)\nScoring Criteria:\n1 A\n metric: a\n threshold: b\n partial: c",
      /expands 3, which the tree above does not reach/,
    ],
    [
      "a bad weight",
      "Structure:\n1\nScoring Criteria:\n1 A\n metric: a\n threshold: b\n partial: c\n weight: lots",
      /Scoring Criteria 1: weight "lots" is not a number/,
    ],
  ])("refuses %s with a message naming the section", (_what, text, message) => {
    expect(() => parseNotation(text)).toThrow(message);
  });
});
