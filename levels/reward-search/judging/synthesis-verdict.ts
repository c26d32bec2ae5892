/**
 * A settled disagreement from the synthesiser's verdict (synthesiser.ts), with hexa's rules applied in code, not
 * left to the model: where the disagreement is about rotation direction the code judge's measurement wins, its
 * score and pass standing whatever the model scored; a model that gave no valid verdict leaves the code judge's
 * score standing, labelled "synthesiser failed". docs/guides/judging.md, "Synthesiser".
 */
import type { Synthesis } from "./agreement.ts";
import type { SettledSynthesis, SynthesiserToolCall, VerdictAnswer } from "./synthesis.ts";

/** The disagreement being settled, with the threshold it was judged against and the model that settles it. */
export type SettleCase = Extract<Synthesis, { kind: "disagree" }> & { passThreshold: number; model: string };

const f3 = (x: number) => Number(x.toFixed(3)).toString();

const callsText = (calls: readonly SynthesiserToolCall[]): string => {
  const ran = calls.filter((c) => c.status === "ran").length;
  return `${ran} tool call${ran === 1 ? "" : "s"} run${calls.length > ran ? ` (${calls.length - ran} refused or invalid)` : ""}`;
};

/** The settlement: the verdict (rotation rule applied), or the code judge's score when there is no verdict. */
export function settledBy(c: SettleCase, calls: readonly SynthesiserToolCall[], answer: VerdictAnswer | { failure: string }): SettledSynthesis {
  const base: Pick<SettledSynthesis, "kind" | "schemaVersion" | "code" | "vision" | "disagreement" | "model" | "toolCalls"> = {
    kind: "settled",
    schemaVersion: 1,
    code: c.code,
    vision: c.vision,
    disagreement: c.reason,
    model: c.model,
    toolCalls: [...calls],
  };
  const codeStands = { score: c.code, passed: c.code >= c.passThreshold, sidedWith: "code" } as const;
  if ("failure" in answer)
    return {
      ...base,
      ...codeStands,
      verdict: null,
      failure: answer.failure,
      rule: `synthesiser failed: ${answer.failure}; the code judge's score ${f3(c.code)} stands`,
    };
  const by = `settled by ${c.model} after ${callsText(calls)}`;
  if (answer.rotation) {
    const overridden = answer.sided_with !== "code" || answer.score !== c.code ? ` (the verdict's ${answer.sided_with} ${f3(answer.score)} is set aside)` : "";
    return {
      ...base,
      ...codeStands,
      verdict: answer,
      failure: null,
      rule: `${by}: the disagreement is about rotation direction, where the code judge's measurement wins: its score ${f3(c.code)} stands${overridden}`,
    };
  }
  return {
    ...base,
    score: answer.score,
    passed: answer.passed,
    sidedWith: answer.sided_with,
    verdict: answer,
    failure: null,
    rule: `${by}: sided with ${answer.sided_with === "neither" ? "neither judge" : `the ${answer.sided_with} judge`}, score ${f3(answer.score)}`,
  };
}
