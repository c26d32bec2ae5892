import { describe, expect, it } from "vitest";
import { firstDifference } from "./compare-values.ts";

describe("firstDifference", () => {
  it("names the first differing field by its path, with both values", () => {
    const recorded = {
      id: "e1",
      trajectory: {
        success: true,
        steps: [
          { turn: 1, observation: "a" },
          { turn: 2, observation: "b" },
        ],
      },
    };
    const replayed = {
      id: "e1",
      trajectory: {
        success: true,
        steps: [
          { turn: 1, observation: "a" },
          { turn: 2, observation: "c" },
        ],
      },
    };
    expect(firstDifference(recorded, replayed)).toEqual({ field: "trajectory.steps[1].observation", recorded: '"b"', replayed: '"c"' });
  });

  it("skips wall-clock times and timestamps, and nothing else", () => {
    const a = { ms: 3, wallMs: 10, at: "2026-01-01", createdAt: "x", time: { simulationMs: 5 }, score: 1 };
    expect(firstDifference(a, { ...a, ms: 4, wallMs: 11, at: "2027-01-01", createdAt: "y", time: { simulationMs: 6 } })).toBeUndefined();
    expect(firstDifference(a, { ...a, score: 2 })).toEqual({ field: "score", recorded: "1", replayed: "2" });
  });

  it("a field present on one side only, and an array of another length, are differences", () => {
    expect(firstDifference({ a: 1 }, { a: 1, b: 2 })).toEqual({ field: "b", recorded: "(absent)", replayed: "2" });
    expect(firstDifference([1, 2], [1, 2, 3])).toEqual({ field: "[2]", recorded: "(absent)", replayed: "3" });
  });

  it("shows two long texts around where they part", () => {
    const head = "x".repeat(1000);
    const d = firstDifference({ t: `${head}AAA tail` }, { t: `${head}BBB tail` })!;
    expect(d.field).toBe("t");
    expect(d.recorded).toMatch(/^…\(920 characters\) "x+AAA tail"$/);
    expect(d.replayed).toMatch(/BBB tail"$/);
  });
});
