import { z } from "zod";
import { byWeight, type Bank, type Mistake, type Skill } from "../src/store/bank.ts";
import type { FamilyWords } from "../src/family/family-words.ts";
import { renderLessonsBlock, shownLessons } from "./lessons-block.ts";

/** The retriever is a rule, not a model (docs/spec/method.md §1.3): top-M skills and top-N mistakes by weight. */
export const RetrieverConfig = z.strictObject({
  topSkills: z.number().int().min(0).default(6).describe("M: skills put into the actor's prompt"),
  topMistakes: z.number().int().min(0).default(4).describe("N: mistakes put into the actor's prompt"),
});
export type RetrieverConfig = z.infer<typeof RetrieverConfig>;

/** Lessons, when the bank has any, are shown by tier (agents/lessons-block.ts), not by weight. */
export const retrieve = (bank: Bank, config: RetrieverConfig): Bank => ({
  skills: byWeight(bank.skills).slice(0, config.topSkills),
  mistakes: byWeight(bank.mistakes).slice(0, config.topMistakes),
  ...(bank.lessons ? { lessons: shownLessons(bank.lessons) } : {}),
});

type BlockWords = Partial<Pick<FamilyWords, "seedsDiffer" | "verifyBy">>;

/** The paper's tag (docs/spec/method.md §1.3): a Lesson was learned from failed runs (a partial skill), a Strategy from the rest. */
const tagOf = (s: Skill): string => (s.sourceType === "partial" ? "Lesson" : "Strategy");

const skillLines = (s: Skill, n: number): string[] => [
  `${n}. [${tagOf(s)}: ${s.title}] ${s.principle} (weight ${s.weight.toFixed(2)})`,
  `   Apply when: ${s.whenToApply}`,
  ...(s.example ? [`   Example: ${s.example}`] : []),
];

/** A group's heading and what its weights mean (method.md §3, §6): evidence of how the sources went, not a chance of success here. */
const groupHead = (transferred: boolean, w: BlockWords): string[] =>
  transferred
    ? [
        `## Skills transferred from other levels (untested here: verify each ${w.verifyBy ?? "by simulation"} before relying on it)`,
        "A skill's weight (0–1) says how strongly the source levels support it; 0.7 or more only when two source levels share it.",
      ]
    : [
        "## Learned skills (from earlier episodes, strongest first)",
        "A skill's weight (0.1–1.0) says how well the episodes it was learned from went: 1.0 fast solves, 0.5 mixed or no evidence, below 0.5 mostly failures.",
      ];

const mistakeLines = (m: Mistake, n: number): string[] => [
  `${n}. What goes wrong: ${m.description}`,
  `   Why it happens: ${m.rootCause}`,
  `   How to avoid: ${m.correction}`,
];

const skillsAndMistakes = (bank: Bank, config: RetrieverConfig, opts: { transferred?: boolean } & BlockWords): string => {
  const { skills, mistakes } = retrieve(bank, config);
  if (skills.length === 0 && mistakes.length === 0) return "";
  const isTransfer = (s: Skill) => opts.transferred ?? s.sourceType === "transfer";
  const groups = [false, true].map((t) => ({ transferred: t, skills: skills.filter((s) => isTransfer(s) === t) })).filter((g) => g.skills.length > 0);
  const lines: string[] = [];
  let n = 0;
  for (const g of groups) {
    if (lines.length > 0) lines.push("");
    lines.push(...groupHead(g.transferred, opts), ...g.skills.flatMap((s) => skillLines(s, ++n)));
  }
  if (mistakes.length > 0) {
    lines.push("", "## Common mistakes to avoid", ...mistakes.flatMap((m, i) => mistakeLines(m, i + 1)));
  }
  const differ = opts.seedsDiffer ? `${opts.seedsDiffer[0]!.toUpperCase()}${opts.seedsDiffer.slice(1)}` : "Every seed differs";
  lines.push("", `${differ}: an example's numbers are a place to start, not an answer; check them by experiment on this seed.`);
  return lines.join("\n").trim();
};

/**
 * The fixed block appended to the actor's system prompt, laid out as the paper's (docs/spec/method.md §1.3); empty
 * when nothing is retrieved. Skills learned on this level and skills transferred from other levels stand under
 * their own headings (a bank of transfer entries only is all transferred unless `transferred` says otherwise);
 * numbering runs on across both, so the actor can name any skill. The bank's lessons, when it has any, come
 * first (docs/spec/method.md §3.1).
 */
export const renderSkillBlock = (bank: Bank, config: RetrieverConfig, opts: { transferred?: boolean } & BlockWords = {}): string =>
  [renderLessonsBlock(bank.lessons ?? []), skillsAndMistakes(bank, config, opts)].filter(Boolean).join("\n\n");
