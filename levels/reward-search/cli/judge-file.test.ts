import { describe, expect, it } from "vitest";
import { JUDGMENT_SCHEMA_VERSION, JudgmentFile } from "./judge-file.ts";

const pick = (name: string, synthesis: Record<string, unknown>) => ({ pick: name, seed: 1, score: 0.5, synthesis });
const fitness = { kind: "single", judge: "fitness", score: 0.5, passed: false, rule: "fitness judge alone: …" };
const v1 = {
  schemaVersion: 1,
  task: "hopper",
  policy: "/p/policy.json",
  intent: null,
  judge: { kind: "fitness", label: "fitness judge", solved: 1000, base: 0 },
  episodes: [{ seed: 1, trajectory: "trajectory-1.bin", steps: 20, fitness: 500, score: 0.5 }],
  picks: ["p10", "median", "p90"].map((p) => pick(p, fitness)),
  notes: [],
};

describe("judgment.json", () => {
  it("reads a version 1 file as written, and a version 2 pick with a vision verdict and a settled synthesis", () => {
    expect(JudgmentFile.parse(v1)).toEqual(v1);
    const verdict = {
      kind: "verdict",
      model: "vlm",
      score: 0.3,
      criteria: [{ criterion: "stays up", status: "not_met", assessment: "falls at 1 s" }],
      diagnosis: "falls",
      failureTags: ["falls"],
      criteriaSource: "asked",
      reviewRounds: 0,
      sent: { frames: 42, of: 42, trail: 0, video: false, times: [0, 0.1] },
    };
    const settled = {
      kind: "settled",
      schemaVersion: 1,
      score: 0.95,
      passed: true,
      code: 1,
      vision: 0.3,
      disagreement: "gap and threshold",
      sidedWith: "code",
      rule: "settled",
      model: "judge-m",
      toolCalls: [{ name: "reask_vision", args: "{}", status: "ran", result: "stands" }],
      verdict: { score: 0.95, passed: true, sided_with: "code", rotation: false, reason: "stands" },
      failure: null,
    };
    const v2 = {
      ...v1,
      schemaVersion: JUDGMENT_SCHEMA_VERSION,
      intent: "stand",
      vision: { model: "vlm", trail: false, maxImages: 50, video: false, label: "vision judge vlm" },
      picks: ["p10", "median", "p90"].map((p) => ({ ...pick(p, settled), vision: verdict })),
    };
    expect(JudgmentFile.parse(v2)).toEqual(v2);
    expect(() => JudgmentFile.parse({ ...v2, schemaVersion: 3 })).toThrow(/schemaVersion/);
    expect(() => JudgmentFile.parse({ ...v2, picks: v2.picks.map((p) => ({ ...p, vision: { ...verdict, score: 2 } })) })).toThrow(
      /picks\.0\.vision\.score|too_big|2/,
    );
  });
});
