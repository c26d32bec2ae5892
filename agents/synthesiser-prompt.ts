import type { Bank, BankEntry } from "../src/store/bank.ts";
import type { FamilyWords } from "../src/family/family-words.ts";
import { SYNTHESIS_COUNTS } from "./synthesiser-schema.ts";

/** A source level as the synthesiser sees it: its factual description and the entries chosen from its bank. */
export interface SynthesisSource {
  level: string;
  description: string;
  bank: Bank;
}

const renderEntry = (e: BankEntry): string =>
  e.kind === "skill"
    ? `- [${e.id}] skill (weight ${e.weight.toFixed(2)})\n  title: ${e.title}\n  principle: ${e.principle}\n  when_to_apply: ${e.whenToApply}`
    : `- [${e.id}] mistake (weight ${e.weight.toFixed(2)})\n  description: ${e.description}\n  root_cause: ${e.rootCause}\n  correction: ${e.correction}`;

const [s0, s1] = SYNTHESIS_COUNTS.skills;
const [m0, m1] = SYNTHESIS_COUNTS.mistakes;

/** The rules of docs/spec/method.md §6, in the family's words; the citation audit checks the checkable ones in code. */
const rules = (words: FamilyWords, target: string) =>
  [
    `You write the starting skill bank for an agent that will solve the ${words.task} level "${target}" by ${words.solvesBy}.`,
    "It has never seen this level played. You get skill banks learned on other levels and factual descriptions of those levels and of the target.",
    "Rules:",
    '- Every entry cites the source entries it is built from as {"level": ..., "id": ...}, exactly as shown; an entry that cites nothing shown is discarded.',
    `- Invent no concrete ${words.numbers} for the target: use only numbers that appear in the target description; a number from a source level does not carry over.`,
    `- Phrase every entry in the target's terms: name only ${words.names} the target description names.`,
    `- No platitudes ('be careful', 'experiment'): each entry states ${words.mechanisms}.`,
    `- State the bridging ${words.primitive.kind} each entry relies on in \`primitive\` (e.g. '${words.primitive.example}').`,
    "- weight in [0, 1]: ≥ 0.7 only if the primitive appears in ≥ 2 source banks (cite an entry from each) and the target clearly uses it; otherwise ≤ 0.69.",
    "- No two entries may say the same thing.",
    `- Write ${s0}–${s1} skills and ${m0}–${m1} mistakes.`,
    "- Answer with one JSON object only, no prose around it.",
  ].join("\n");

const SHAPE = `{"skills": [{"title": "...", "principle": "2–3 sentences", "when_to_apply": "...", "primitive": "...", "weight": 0.5, "cites": [{"level": "...", "id": "..."}]}, ...],
 "mistakes": [{"description": "what goes wrong", "root_cause": "the broken causal belief", "correction": "what to do instead", "primitive": "...", "weight": 0.5, "cites": [...]}, ...]}`;

export const synthesisPrompt = (words: FamilyWords, target: { level: string; description: string }, sources: readonly SynthesisSource[]) => ({
  system: rules(words, target.level),
  user: [
    `## target level: ${target.level}`,
    target.description,
    ...sources.flatMap((s) => [
      "",
      `## source level: ${s.level}`,
      s.description,
      `### bank of ${s.level}`,
      [...s.bank.skills, ...s.bank.mistakes].map(renderEntry).join("\n") || "(empty)",
    ]),
    "",
    `Write the bank for ${target.level} as JSON of this shape:`,
    SHAPE,
  ].join("\n"),
});
