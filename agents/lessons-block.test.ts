import { describe, expect, it } from "vitest";
import { NO_EVIDENCE } from "../src/store/bank-weights.ts";
import type { Bank } from "../src/store/bank.ts";
import type { Lesson, LessonTier } from "../src/store/lesson.ts";
import { RETIRED_SHOWN, renderLessonsBlock } from "./lessons-block.ts";
import { renderSkillBlock, retrieve, RetrieverConfig } from "./retriever.ts";

const lesson = (id: string, tier: LessonTier, generation = 1): Lesson => ({
  kind: "lesson",
  id,
  text: `Lesson ${id}.`,
  tier,
  generation,
  parents: [],
  history: tier === "RETIRED" ? [{ round: generation, from: "STRONG", to: "RETIRED", reason: `why ${id}`, by: "reviser" }] : [],
});

const skillOnly: Bank = {
  skills: [
    {
      kind: "skill",
      id: "s1",
      title: "Lean in",
      principle: "Lean in.",
      whenToApply: "Always.",
      sourceType: "contrastive",
      sourceSeeds: [1],
      generation: 1,
      weight: 0.7,
      parents: [],
      evidence: NO_EVIDENCE,
    },
  ],
  mistakes: [],
};

describe("lessons in the actor's block", () => {
  it("come before the skills, most binding first, with the retired under do-not-repeat", () => {
    const bank: Bank = { ...skillOnly, lessons: [lesson("a", "SOFT"), lesson("b", "RETIRED", 2), lesson("c", "HARD"), lesson("d", "STRONG")] };
    const block = renderSkillBlock(bank, RetrieverConfig.parse({}));
    expect(block.startsWith("## Lessons from earlier iterations (most binding first)")).toBe(true);
    expect([...block.matchAll(/^\d+\. \[([A-Z, a-z]+)\] Lesson (\w)\./gm)].map((m) => `${m[1]} ${m[2]}`)).toEqual([
      "HARD c",
      "STRONG d",
      "SOFT, challengeable a",
    ]);
    expect(block).toContain("## Retired lessons: do not repeat these mistakes\n- Lesson b. (retired: why b)\n\n## Learned skills");
    expect(block.endsWith(renderSkillBlock(skillOnly, RetrieverConfig.parse({})))).toBe(true);
  });

  it("render alone when the bank has lessons only, and not at all when it has none", () => {
    expect(renderSkillBlock({ skills: [], mistakes: [], lessons: [lesson("a", "STRONG")] }, RetrieverConfig.parse({}))).toBe(
      renderLessonsBlock([lesson("a", "STRONG")]),
    );
    expect(renderSkillBlock({ skills: [], mistakes: [], lessons: [] }, RetrieverConfig.parse({}))).toBe("");
    expect(Object.keys(retrieve(skillOnly, RetrieverConfig.parse({})))).toEqual(["skills", "mistakes"]);
  });

  it(`show at most ${RETIRED_SHOWN} retired lessons, the most recently retired`, () => {
    const retired = Array.from({ length: 12 }, (_, i) => lesson(`r${i}`, "RETIRED", i));
    const block = renderLessonsBlock(retired);
    expect(block.startsWith("## Retired lessons")).toBe(true);
    expect([...block.matchAll(/^- Lesson (r\d+)\./gm)].map((m) => m[1])).toEqual(["r11", "r10", "r9", "r8", "r7", "r6", "r5", "r4", "r3", "r2"]);
  });

  it("show at most 25 active lessons, and name them among the entries retrieved", () => {
    const many = Array.from({ length: 30 }, (_, i) => lesson(`l${i}`, "STRONG", i));
    const shown = retrieve({ skills: [], mistakes: [], lessons: many }, RetrieverConfig.parse({})).lessons!;
    expect(shown).toHaveLength(25);
    expect(shown[0]!.id).toBe("l29");
  });
});
