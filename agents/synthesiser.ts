import { HumanMessage, SystemMessage } from "@langchain/core/messages";
import { askStructured, type RoleModel } from "../src/llm/ask.ts";
import { NO_EVIDENCE } from "../src/store/bank-weights.ts";
import type { Mistake, Skill } from "../src/store/bank.ts";
import type { FamilyWords } from "../src/family/family-words.ts";
import type { Candidate } from "./synthesiser-audit.ts";
import { synthesisPrompt, type SynthesisSource } from "./synthesiser-prompt.ts";
import { SynthesisAnswer } from "./synthesiser-schema.ts";

export interface SynthesiseOptions {
  model: RoleModel;
  words: FamilyWords;
  target: { level: string; description: string };
  sources: readonly SynthesisSource[];
}

export interface LlmSynthesis {
  candidates: Candidate[];
  /** The messages of the first call (their hash goes into the bank's provenance). */
  prompt: { system: string; user: string };
  /** The model name the endpoint reported. */
  model: string;
}

/** Transferred entries start with no evidence of their own: the target was never played (docs/spec/method.md §6). */
const common = (id: string) => ({ id, sourceSeeds: [], generation: 0, parents: [], evidence: NO_EVIDENCE });

/**
 * The zero-shot transfer synthesiser (docs/spec/method.md §6): one call, source banks and descriptions in, a target bank
 * out, zod-validated with one retry. A second failure throws the ModelOutputError: the caller writes nothing.
 * The citation audit (synthesiser-audit.ts) runs on the candidates afterwards.
 */
export const synthesise = async (o: SynthesiseOptions): Promise<LlmSynthesis> => {
  const prompt = synthesisPrompt(o.words, o.target, o.sources);
  const { value, turns } = await askStructured(o.model, [new SystemMessage(prompt.system), new HumanMessage(prompt.user)], SynthesisAnswer, {
    name: "transfer_bank",
  });
  const skills = value.skills.map(
    (s, i): Candidate => ({
      entry: {
        kind: "skill",
        ...common(`ts${i + 1}`),
        weight: s.weight,
        title: s.title,
        principle: s.principle,
        whenToApply: s.when_to_apply,
        sourceType: "transfer",
        payload: { primitive: s.primitive },
      } satisfies Skill,
      cites: s.cites,
    }),
  );
  const mistakes = value.mistakes.map(
    (m, i): Candidate => ({
      entry: {
        kind: "mistake",
        ...common(`tm${i + 1}`),
        weight: m.weight,
        description: m.description,
        rootCause: m.root_cause,
        correction: m.correction,
        payload: { primitive: m.primitive },
      } satisfies Mistake,
      cites: m.cites,
    }),
  );
  return { candidates: [...skills, ...mistakes], prompt, model: turns.at(-1)?.model ?? "" };
};
