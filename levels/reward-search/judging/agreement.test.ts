import { describe, expect, it } from "vitest";
import { synthesise } from "./agreement.ts";

describe("synthesise", () => {
  it("agrees when the gap is at most 0.2 and both pass: the mean, with the rule stated", () => {
    expect(synthesise({ code: 0.95, vision: 0.9 })).toEqual({
      kind: "agree",
      score: 0.925,
      passed: true,
      code: 0.95,
      vision: 0.9,
      rule: "agree: code 0.95 and vision 0.9 differ by 0.05 ≤ 0.2 and both are at or above the pass threshold 0.9; combined as their mean 0.925, without a model call",
    });
  });

  it("agrees on failing too, and at a gap of exactly 0.2 (0.7 vs 0.5)", () => {
    expect(synthesise({ code: 0.7, vision: 0.5 })).toMatchObject({ kind: "agree", score: 0.6, passed: false });
  });

  it("disagrees past the gap, naming it", () => {
    expect(synthesise({ code: 0.8, vision: 0.3 })).toEqual({
      kind: "disagree",
      reason: "gap",
      code: 0.8,
      vision: 0.3,
      rule: "disagree: code 0.8 and vision 0.3 differ by 0.5: 0.5 > 0.2; to be settled by the synthesiser with its tools",
    });
  });

  it("disagrees when one passes and the other does not, even when close", () => {
    expect(synthesise({ code: 0.92, vision: 0.85 })).toMatchObject({
      kind: "disagree",
      reason: "threshold",
      rule: expect.stringMatching(/one passes the threshold 0\.9 and the other does not/),
    });
    expect(synthesise({ code: 1, vision: 0.5 })).toMatchObject({ kind: "disagree", reason: "gap and threshold" });
  });

  it("takes the pass threshold and gap from the config", () => {
    expect(synthesise({ code: 0.75, vision: 0.65 }, { passThreshold: 0.7 })).toMatchObject({ kind: "disagree", reason: "threshold" });
    expect(synthesise({ code: 0.8, vision: 0.5 }, { maxGap: 0.3 })).toMatchObject({ kind: "agree" });
  });

  it("lets one judge alone stand, labelled; an unusable score counts as absent and is named", () => {
    expect(synthesise({ code: 0.93 })).toEqual({
      kind: "single",
      judge: "code",
      score: 0.93,
      passed: true,
      rule: "code judge alone: its score 0.93 stands, at or above the pass threshold 0.9",
    });
    expect(synthesise({ code: Number.NaN, vision: 0.4 })).toMatchObject({
      kind: "single",
      judge: "vision",
      passed: false,
      rule: expect.stringMatching(/ignored: code judge NaN is not a score in \[0, 1\]/),
    });
    expect(synthesise({ vision: 1.5 })).toMatchObject({ kind: "none" });
  });
});
