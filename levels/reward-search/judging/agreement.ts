/**
 * The synthesiser's rule for when the code judge and the vision judge agree, decided in code with no model call
 * (docs/guides/judging.md, "Agreement"): they agree when their scores differ by at most `maxGap` and both lie on
 * the same side of the pass threshold; the combined score is then their mean. Otherwise they disagree, with the
 * reason, and a later step (a model with tools) settles it. One judge alone: its score stands, labelled.
 */
import { z } from "zod";

export const AgreementConfig = z.strictObject({
  passThreshold: z.number().min(0).max(1).default(0.9).describe("a score at or above this passes"),
  maxGap: z.number().min(0).max(1).default(0.2).describe("the largest difference between the two judges' scores that still agrees"),
});
export type AgreementConfig = z.infer<typeof AgreementConfig>;

export type Synthesis =
  | { kind: "agree"; score: number; passed: boolean; code: number; vision: number; rule: string }
  | { kind: "disagree"; reason: "gap" | "threshold" | "gap and threshold"; code: number; vision: number; rule: string }
  | { kind: "single"; judge: "code" | "vision"; score: number; passed: boolean; rule: string }
  | { kind: "none"; rule: string };

/** Floating-point slack, so that 0.9 − 0.7 counts as a gap of 0.2. */
const EPS = 1e-9;
const f2 = (x: number) => Number(x.toFixed(3)).toString();

/** A usable score in [0, 1], or the reason it is not one. */
const usable = (x: number | null | undefined): number | string | null =>
  x === null || x === undefined ? null : Number.isFinite(x) && x >= 0 && x <= 1 ? x : `${String(x)} is not a score in [0, 1]`;

/** Combine a code judge's and a vision judge's scores (either may be absent) by the agreement rule. */
export function synthesise(scores: { code?: number | null; vision?: number | null }, config?: Partial<AgreementConfig>): Synthesis {
  const { passThreshold: t, maxGap } = AgreementConfig.parse(config ?? {});
  const code = usable(scores.code);
  const vision = usable(scores.vision);
  const ignored = [typeof code === "string" ? `code judge ${code}` : "", typeof vision === "string" ? `vision judge ${vision}` : ""].filter(Boolean);
  const note = ignored.length > 0 ? ` (ignored: ${ignored.join("; ")})` : "";
  const side = (x: number) => (x >= t ? "at or above" : "below");
  if (typeof code !== "number" && typeof vision !== "number") return { kind: "none", rule: `no judge gave a score${note}` };
  if (typeof code !== "number" || typeof vision !== "number") {
    const [judge, score] = typeof code === "number" ? (["code", code] as const) : (["vision", vision as number] as const);
    return {
      kind: "single",
      judge,
      score,
      passed: score >= t,
      rule: `${judge} judge alone: its score ${f2(score)} stands, ${side(score)} the pass threshold ${f2(t)}${note}`,
    };
  }
  const gap = Math.abs(code - vision);
  const close = gap <= maxGap + EPS;
  const sameSide = code >= t === vision >= t;
  const both = `code ${f2(code)} and vision ${f2(vision)} differ by ${f2(gap)}`;
  if (close && sameSide) {
    const score = (code + vision) / 2;
    return {
      kind: "agree",
      score,
      passed: score >= t,
      code,
      vision,
      rule: `agree: ${both} ≤ ${f2(maxGap)} and both are ${side(code)} the pass threshold ${f2(t)}; combined as their mean ${f2(score)}, without a model call`,
    };
  }
  const reason = !close && !sameSide ? "gap and threshold" : close ? "threshold" : "gap";
  const why = [close ? "" : `${f2(gap)} > ${f2(maxGap)}`, sameSide ? "" : `one passes the threshold ${f2(t)} and the other does not`]
    .filter(Boolean)
    .join(", and ");
  return { kind: "disagree", reason, code, vision, rule: `disagree: ${both}: ${why}; to be settled by the synthesiser with its tools` };
}
