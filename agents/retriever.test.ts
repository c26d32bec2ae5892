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
    const titles = [...block.matchAll(/^\d+\. (Skill \d)/gm)].map((m) => m[1]);
    expect(titles).toEqual(["Skill 1", "Skill 3", "Skill 5", "Skill 2", "Skill 6", "Skill 7"]);
    expect([...block.matchAll(/What goes wrong: (Wrong \d)/g)].map((m) => m[1])).toEqual(["Wrong 1", "Wrong 3", "Wrong 2", "Wrong 0"]);
    expect(block).toMatch(/^## Learned skills/);
    expect(block).toContain("Example: x=1.2, y=3.0, r=0.5");
    expect(block).toContain("## Common mistakes");
  });

  it("uses the transfer heading for transferred banks, and nothing for an empty bank", () => {
    expect(renderSkillBlock(bank, RetrieverConfig.parse({ topMistakes: 0 }), { transferred: true })).toMatch(
      /^## Skills transferred from other levels .*verify each by simulation/,
    );
    expect(renderSkillBlock({ skills: [], mistakes: [] }, RetrieverConfig.parse({}))).toBe("");
  });

  it("says what a weight means and that the seed differs (the family's words)", () => {
    const block = renderSkillBlock(bank, RetrieverConfig.parse({}), { seedsDiffer: "object positions and sizes differ from seed to seed" });
    expect(block.split("\n").slice(1, 3)).toEqual([
      "A skill's weight (0.1–1.0) says how well the episodes it was learned from went: 1.0 fast solves, 0.5 mixed or no evidence, below 0.5 mostly failures.",
      "Object positions and sizes differ from seed to seed: an example's numbers are a place to start, not an answer; check them by experiment on this seed.",
    ]);
    expect(renderSkillBlock(bank, RetrieverConfig.parse({}), { transferred: true })).toContain("0.7 or more only when two source levels share it");
    expect(renderSkillBlock(bank, RetrieverConfig.parse({}), { transferred: true, verifyBy: "by checking and training it" })).toMatch(
      /^## Skills transferred from other levels \(untested here: verify each by checking and training it before/,
    );
  });
});
