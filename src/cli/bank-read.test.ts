import { describe, expect, it } from "vitest";
import { BankEvent } from "../store/bank.ts";
import { eventLine } from "./bank-read.ts";

const ev = (e: Record<string, unknown>): BankEvent => BankEvent.parse({ schemaVersion: 1, ...e });
const lesson = (id: string, tier = "STRONG") => ({ kind: "lesson", id, text: `Lesson ${id}.`, tier, generation: 1, parents: [], history: [] });

describe("hexa bank history's lines for lesson events", () => {
  it("name the lesson, its tier, the tier change with who and why, and a merge's sources", () => {
    expect(eventLine(ev({ type: "lesson_added", round: 1, entry: lesson("l1_1"), reason: "iteration 1" }))).toBe(
      "r1   lesson_added l1_1 (lesson, STRONG: Lesson l1_1.) — iteration 1",
    );
    expect(eventLine(ev({ type: "lesson_tier_changed", round: 2, id: "l1_1", from: "STRONG", to: "SOFT", reason: "one counter-example", by: "reviser" }))).toBe(
      "r2   lesson_tier_changed l1_1 STRONG → SOFT by reviser — one counter-example",
    );
    expect(
      eventLine(
        ev({
          type: "lessons_merged",
          round: 3,
          from: ["l1_1", "l1_2"],
          entry: { ...lesson("l3_1", "HARD"), parents: ["l1_1", "l1_2"] },
          reason: "the same lesson",
        }),
      ),
    ).toBe("r3   lessons_merged l1_1 + l1_2 → l3_1 (lesson, HARD: Lesson l3_1.) — the same lesson");
  });
});
