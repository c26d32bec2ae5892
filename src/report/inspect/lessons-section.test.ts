import { describe, expect, it } from "vitest";
import { BankEvent } from "../../store/bank.ts";
import { lessonsText } from "../lessons-text.ts";
import { bankView } from "./bank-view.ts";
import { lessonsSection } from "./lessons-section.ts";
import type { Report } from "./model.ts";

const ev = (e: Record<string, unknown>): BankEvent => BankEvent.parse({ schemaVersion: 1, ...e });
const lesson = (id: string, text: string, tier = "STRONG") => ({ kind: "lesson", id, text, tier, generation: 1, parents: [], history: [] });

const events = [
  ev({ type: "lesson_added", round: 1, entry: lesson("l1_1", "Keep the <torso> upright."), reason: "iteration 1" }),
  ev({ type: "lesson_added", round: 1, entry: lesson("l1_2", "Never dive.", "HARD") }),
  ev({ type: "lesson_tier_changed", round: 2, id: "l1_1", from: "STRONG", to: "RETIRED", reason: "the hop needs a lean", by: "reviser" }),
];

describe("lessons in hexa inspect and hexa bank show", () => {
  it("the bank view lists each level's lessons by tier, with the history and a retired one's reason", () => {
    const view = bankView(new Map([["hopper_hop", events]]), []);
    expect(view.lessons!.map((l) => [l.id, l.tier, l.retiredReason])).toEqual([
      ["l1_2", "HARD", undefined],
      ["l1_1", "RETIRED", "the hop needs a lean"],
    ]);
    expect(view.lessons![1]!.history).toEqual([{ round: 2, from: "STRONG", to: "RETIRED", reason: "the hop needs a lean", by: "reviser" }]);
  });

  it("the bank view of a run without lessons has no lessons field, and the page no lessons section", () => {
    const skill = {
      kind: "skill",
      id: "s1",
      title: "t",
      principle: "p",
      whenToApply: "w",
      sourceType: "contrastive",
      sourceSeeds: [1],
      generation: 1,
      weight: 0.5,
      parents: [],
      evidence: { sumR: 0, count: 0 },
    };
    const view = bankView(new Map([["catapult", [ev({ type: "add", round: 1, entry: skill })]]]), []);
    expect("lessons" in view).toBe(false);
    expect(lessonsSection({ cells: [{ name: "c", runs: [{ id: "r", bank: view }] }] } as unknown as Report)).toBe("");
  });

  it("the page shows each run's lessons with tier, reasons and history, escaped", () => {
    const view = bankView(new Map([["hopper_hop", events]]), []);
    const html = lessonsSection({ cells: [{ name: "c", runs: [{ id: "run-1", bank: view }] }] } as unknown as Report);
    expect(html).toContain('<section id="lessons"><h2>Lessons</h2>');
    expect(html).toContain('<td><b>RETIRED</b></td><td>Keep the &lt;torso&gt; upright.<br><span class="muted">retired because: the hop needs a lean</span>');
    expect(html).toContain("round 2: STRONG → RETIRED by reviser — the hop needs a lean");
    expect(html.indexOf("Never dive.")).toBeLessThan(html.indexOf("Keep the"));
  });

  it("hexa bank show prints the lessons most binding first, with each change and why a retired one was retired", () => {
    const view = bankView(new Map([["hopper_hop", events]]), []);
    const lessons = view.lessons!.map(({ level: _, retiredReason: __, ...l }) => ({ kind: "lesson" as const, generation: 1, ...l }));
    expect(lessonsText(lessons).slice(1)).toEqual([
      "  l1_2  HARD     Never dive.",
      "  l1_1  RETIRED  Keep the <torso> upright.",
      "    round 2: STRONG → RETIRED by reviser — the hop needs a lean",
      "    retired because: the hop needs a lean",
    ]);
  });
});
