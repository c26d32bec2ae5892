import { z } from "zod";

/** The synthesiser's JSON answer (docs/spec/method.md §6): 6–10 skills and 2–4 mistakes, each citing source entries. */
const text = z.string().trim().min(1);
const cites = z
  .array(z.object({ level: text, id: text }))
  .min(1)
  .describe("the source entries this entry maps, as (level, id) exactly as shown");
const weight = z.number().min(0).max(1).describe("≥ 0.7 only if the primitive appears in ≥ 2 source banks and the target clearly uses it");
const primitive = text.describe("the bridging primitive (physical, or of reward design), in a few words");

export const SYNTHESIS_COUNTS = { skills: [6, 10], mistakes: [2, 4] } as const;

export const SynthesisAnswer = z.object({
  skills: z
    .array(z.object({ title: text, principle: text, when_to_apply: text, primitive, weight, cites }))
    .min(SYNTHESIS_COUNTS.skills[0])
    .max(SYNTHESIS_COUNTS.skills[1]),
  mistakes: z
    .array(z.object({ description: text, root_cause: text, correction: text, primitive, weight, cites }))
    .min(SYNTHESIS_COUNTS.mistakes[0])
    .max(SYNTHESIS_COUNTS.mistakes[1]),
});
