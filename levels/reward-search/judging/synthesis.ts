/**
 * The synthesis of a code judge and a vision judge as stored (judgment.json) and read back: the agreement rule's
 * outcomes (agreement.ts) and `settled`, a disagreement the synthesiser settled with a model and its tools
 * (synthesiser.ts, docs/guides/judging.md "Synthesiser"), carrying every tool call it made and the verdict.
 */
import { z } from "zod";

const Unit = z.number().min(0).max(1);
const Judge = z.enum(["code", "vision"]);
const DisagreementReason = z.enum(["gap", "threshold", "gap and threshold"]);

/** The longest text of one tool call's arguments and of its result kept in the record, characters. */
export const MAX_RECORDED_ARGS = 24_000;
const MAX_RECORDED_RESULT = 4000;
const MAX_REASON = 1000;

/** The verdict as the model writes it (snake_case: the model's own words, docs/spec/style.md §15). */
export const VerdictAnswer = z.object({
  score: Unit.describe("how well the episode performs the intent, 0 to 1"),
  passed: z.boolean().describe("true exactly when score is at or above the pass threshold"),
  sided_with: z.enum(["code", "vision", "neither"]).describe("the judge whose reading the verdict follows"),
  rotation: z.boolean().describe("true when the disagreement is about which way the body rotated"),
  reason: z.string().min(1).max(MAX_REASON).describe("why, citing what the tool calls showed"),
});
export type VerdictAnswer = z.infer<typeof VerdictAnswer>;

/** One tool call the model asked for: run, refused past the budget, or invalid (bad arguments, unknown tool). */
export const SynthesiserToolCall = z.strictObject({
  name: z.string().max(200),
  /** The arguments' JSON text, cut at MAX_RECORDED_ARGS. */
  args: z.string().max(MAX_RECORDED_ARGS + 60),
  status: z.enum(["ran", "invalid", "refused"]),
  /** What the model was told, cut at MAX_RECORDED_RESULT. */
  result: z.string().max(MAX_RECORDED_RESULT + 80),
});
export type SynthesiserToolCall = z.infer<typeof SynthesiserToolCall>;

/** A disagreement settled: by the model's verdict (rotation rule applied), or by the labelled fallback when it gave none. */
export const SettledSynthesis = z.strictObject({
  kind: z.literal("settled"),
  schemaVersion: z.literal(1),
  score: Unit,
  passed: z.boolean(),
  code: Unit,
  vision: Unit,
  disagreement: DisagreementReason,
  sidedWith: z.enum(["code", "vision", "neither"]),
  /** How the score was reached, stated: the verdict, the rotation rule, or the fallback. */
  rule: z.string(),
  /** The configured model that settled it. */
  model: z.string(),
  toolCalls: z.array(SynthesiserToolCall).max(16),
  /** The model's verdict as it gave it; null when it gave no valid one (then `failure` says why). */
  verdict: VerdictAnswer.nullable(),
  failure: z.string().nullable(),
});
export type SettledSynthesis = z.infer<typeof SettledSynthesis>;

/** Every outcome of a synthesis, as judgment.json stores it. */
export const SynthesisRecord = z.discriminatedUnion("kind", [
  z.strictObject({ kind: z.literal("agree"), score: Unit, passed: z.boolean(), code: Unit, vision: Unit, rule: z.string() }),
  z.strictObject({ kind: z.literal("disagree"), reason: DisagreementReason, code: Unit, vision: Unit, rule: z.string() }),
  z.strictObject({ kind: z.literal("single"), judge: Judge, score: Unit, passed: z.boolean(), rule: z.string() }),
  z.strictObject({ kind: z.literal("none"), rule: z.string() }),
  SettledSynthesis,
]);
export type SynthesisRecord = z.infer<typeof SynthesisRecord>;
