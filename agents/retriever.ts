import { z } from "zod";
import { byWeight, type Bank } from "../src/store/bank.ts";
import type { FamilyWords } from "../src/family/family-words.ts";

/** The retriever is a rule, not a model (docs/spec/method.md §1.3): top-M skills and top-N mistakes by weight. */
export const RetrieverConfig = z.strictObject({
  topSkills: z.number().int().min(0).default(6).describe("M: skills put into the actor's prompt"),
  topMistakes: z.number().int().min(0).default(4).describe("N: mistakes put into the actor's prompt"),
});
export type RetrieverConfig = z.infer<typeof RetrieverConfig>;

export const retrieve = (bank: Bank, config: RetrieverConfig): Bank => ({
  skills: byWeight(bank.skills).slice(0, config.topSkills),
  mistakes: byWeight(bank.mistakes).slice(0, config.topMistakes),
});

/**
 * The fixed block appended to the actor's system prompt; empty when nothing is retrieved. A transferred bank
 * says that its skills come from other levels and must be verified by simulation.
 */
export const renderSkillBlock = (
  bank: Bank,
  config: RetrieverConfig,
  opts: { transferred?: boolean } & Partial<Pick<FamilyWords, "seedsDiffer" | "verifyBy">> = {},
): string => {
  const { skills, mistakes } = retrieve(bank, config);
  if (skills.length === 0 && mistakes.length === 0) return "";
  const lines: string[] = [];
  if (skills.length > 0) {
    // A bank of transfer entries only (hexa transfer's) is a transferred bank unless the caller says otherwise.
    const transferred = opts.transferred ?? skills.every((s) => s.sourceType === "transfer");
    lines.push(
      transferred
        ? `## Skills transferred from other levels (untested here: verify each ${opts.verifyBy ?? "by simulation"} before relying on it)`
        : "## Learned skills (from earlier episodes, strongest first)",
      // What the number means (method.md §3, §6): evidence of how the sources went, not a chance of success here.
      transferred
        ? "A skill's weight (0–1) says how strongly the source levels support it; 0.7 or more only when two source levels share it."
        : "A skill's weight (0.1–1.0) says how well the episodes it was learned from went: 1.0 fast solves, 0.5 mixed or no evidence, below 0.5 mostly failures.",
      `${opts.seedsDiffer ? `${opts.seedsDiffer[0]!.toUpperCase()}${opts.seedsDiffer.slice(1)}` : "Every seed differs"}: an example's numbers are a place to start, not an answer; check them by experiment on this seed.`,
    );
    skills.forEach((s, i) => {
      lines.push(`${i + 1}. ${s.title} (weight ${s.weight.toFixed(2)})`, `   Principle: ${s.principle}`, `   When to apply: ${s.whenToApply}`);
      if (s.example) lines.push(`   Example: ${s.example}`);
    });
  }
  if (mistakes.length > 0) {
    lines.push("", "## Common mistakes");
    mistakes.forEach((m, i) => {
      lines.push(`${i + 1}. What goes wrong: ${m.description}`, `   Why: ${m.rootCause}`, `   How to avoid: ${m.correction}`);
    });
  }
  return lines.join("\n").trim();
};
