import { describe, expect, it } from "vitest";
import { NO_EVIDENCE } from "../src/store/bank-weights.ts";
import type { Bank } from "../src/store/bank.ts";
import { renderSkillBlock, RetrieverConfig } from "./retriever.ts";

const bank: Bank = {
  skills: [0.3, 0.9, 0.6, 0.8, 0.2, 0.7, 0.5, 0.4].map((w, i) => ({
    kind: "skill" as const,
    id: `s${i}`,
    title: `Skill ${i}`,
    principle: `Principle ${i}.`,
    whenToApply: `When ${i}.`,
    ...(i === 1 ? { example: "x=1.2, y=3.0, r=0.5" } : {}),
    sourceType: "contrastive" as const,
    sourceSeeds: [i],
    generation: 1,
    weight: w,
    parents: [],
    evidence: NO_EVIDENCE,
  })),
  mistakes: [0.2, 0.9, 0.5, 0.6, 0.1].map((w, i) => ({
    kind: "mistake" as const,
    id: `m${i}`,
    description: `Wrong ${i}.`,
    rootCause: `Cause ${i}.`,
    correction: `Fix ${i}.`,
    sourceSeeds: [i],
    generation: 1,
    weight: w,
    parents: [],
    evidence: NO_EVIDENCE,
  })),
};

describe("retriever", () => {
  it("puts the top-M skills and top-N mistakes by weight into the fixed block", () => {
    const block = renderSkillBlock(bank, RetrieverConfig.parse({}));
    const titles = [...block.matchAll(/^\d+\. \[Strategy: (Skill \d)\]/gm)].map((m) => m[1]);
    expect(titles).toEqual(["Skill 1", "Skill 3", "Skill 5", "Skill 2", "Skill 6", "Skill 7"]);
    expect([...block.matchAll(/What goes wrong: (Wrong \d)/g)].map((m) => m[1])).toEqual(["Wrong 1", "Wrong 3", "Wrong 2", "Wrong 0"]);
    expect(block).toMatch(/^## Learned skills/);
    expect(block).toContain("Example: x=1.2, y=3.0, r=0.5");
    expect(block).toContain("## Common mistakes to avoid");
    expect(block).toContain("1. [Strategy: Skill 1] Principle 1. (weight 0.90)\n   Apply when: When 1.\n   Example: x=1.2, y=3.0, r=0.5");
    expect(block).toContain("1. What goes wrong: Wrong 1.\n   Why it happens: Cause 1.\n   How to avoid: Fix 1.");
  });

  it("tags a skill learned from failures as a Lesson and the others as Strategies (the paper's tags)", () => {
    const partial = { ...bank, skills: bank.skills.map((s) => (s.id === "s3" ? { ...s, sourceType: "partial" as const } : s)) };
    const block = renderSkillBlock(partial, RetrieverConfig.parse({}));
    expect(block).toContain("2. [Lesson: Skill 3] Principle 3.");
    expect(block).toContain("1. [Strategy: Skill 1] Principle 1.");
  });

  it("puts transferred skills of a mixed bank under their own heading, numbering on", () => {
    const mixed = { ...bank, skills: bank.skills.map((s) => (s.id === "s1" || s.id === "s5" ? { ...s, sourceType: "transfer" as const } : s)) };
    const block = renderSkillBlock(mixed, RetrieverConfig.parse({ topMistakes: 0 }));
    const own = block.indexOf("## Learned skills");
    const moved = block.indexOf("## Skills transferred from other levels");
    expect(own).toBe(0);
    expect(moved).toBeGreaterThan(own);
    expect(block.slice(moved)).toMatch(/^## Skills transferred[^\n]*\n[^\n]*\n5\. \[Strategy: Skill 1\][\s\S]*\n6\. \[Strategy: Skill 5\]/);
    expect(block.slice(own, moved)).toMatch(/1\. \[Strategy: Skill 3\][\s\S]*4\. \[Strategy: Skill 7\]/);
  });

  it("uses the transfer heading for transferred banks, and nothing for an empty bank", () => {
    expect(renderSkillBlock(bank, RetrieverConfig.parse({ topMistakes: 0 }), { transferred: true })).toMatch(
      /^## Skills transferred from other levels .*verify each by simulation/,
    );
    expect(renderSkillBlock({ skills: [], mistakes: [] }, RetrieverConfig.parse({}))).toBe("");
  });

  it("says what a weight means and that the seed differs (the family's words)", () => {
    const block = renderSkillBlock(bank, RetrieverConfig.parse({}), { seedsDiffer: "object positions and sizes differ from seed to seed" });
    const lines = block.split("\n");
    expect(lines[1]).toBe(
      "A skill's weight (0.1–1.0) says how well the episodes it was learned from went: 1.0 fast solves, 0.5 mixed or no evidence, below 0.5 mostly failures.",
    );
    expect(lines.at(-1)).toBe(
      "Object positions and sizes differ from seed to seed: an example's numbers are a place to start, not an answer; check them by experiment on this seed.",
    );
    expect(renderSkillBlock(bank, RetrieverConfig.parse({}), { transferred: true })).toContain("0.7 or more only when two source levels share it");
    expect(renderSkillBlock(bank, RetrieverConfig.parse({}), { transferred: true, verifyBy: "by checking and training it" })).toMatch(
      /^## Skills transferred from other levels \(untested here: verify each by checking and training it before/,
    );
  });
});
