import type { Design, Term } from "../heuristic/terms.ts";
import { namedSurvival } from "../hacking-rule.ts";
import { F_CURVE, HACKING_ALARM, NEVER_CHANGED } from "../tools/feedback.ts";

/**
 * What the heuristic proposer reads of a reward reflection (tools/feedback.ts, docs/spec/reward-search.md §6, §9) —
 * the model's feedback, so the offline proposer stands in for it — and its answer to each signal:
 * - the **hacking alarm** names a term carrying most of the reward while F did not follow it: drop it;
 * - components that **never changed** are not being optimised: raise their weight (×2, inside the term's range),
 *   or drop them where it cannot rise;
 * - a survival term is never dropped for either (the family's hacking rule, hacking-rule.ts: it acts through
 *   episode length, and a constant one means episodes did not end);
 * - a **falling F curve** (the final policy below the best checkpoint) says the last change overshot: halve it.
 */

export interface FeedbackSignals {
  /** Components that never changed during training. */
  constant: string[];
  /** The component the hacking alarm names. */
  hacking: string | null;
  /** F over training ends below its best. */
  falling: boolean;
}

/** A final F below the curve's best by more than this share of the curve's range counts as falling. */
const FALL_SHARE = 0.05;

const lineAfter = (text: string, prefix: string): string | undefined =>
  text
    .split("\n")
    .find((l) => l.startsWith(prefix))
    ?.slice(prefix.length);

export const readSignals = (feedback: string): FeedbackSignals => {
  const constant = (lineAfter(feedback, NEVER_CHANGED) ?? "").replace(/\.$/, "").split(", ").filter(Boolean);
  const hacking = lineAfter(feedback, HACKING_ALARM)?.split(" ")[0] ?? null;
  const curve = (lineAfter(feedback, F_CURVE) ?? "").replace(/\.$/, "").split(" → ").map(Number).filter(Number.isFinite);
  const [lo, hi] = [Math.min(...curve), Math.max(...curve)];
  const falling = curve.length >= 2 && hi > lo && curve.at(-1)! < hi - FALL_SHARE * (hi - lo);
  return { constant, hacking, falling };
};

/** One weight's change from a design to the next: `from` undefined for an added term, `to` for a dropped one. */
interface Change {
  name: string;
  from?: number;
  to?: number;
}

const fmt = (w: number) => String(Number(w.toPrecision(3)));

/** `x 0.5→0.75, +y 1, −z 0.3`: what changed from `a` to `b` (the thought records it, so a child can halve it). */
export const changeText = (a: Design, b: Design): string =>
  [...new Set([...Object.keys(a), ...Object.keys(b)])]
    .flatMap((k) => {
      if (a[k] === undefined) return [`+${k} ${fmt(b[k]!)}`];
      if (b[k] === undefined) return [`−${k} ${fmt(a[k]!)}`];
      return a[k] === b[k] ? [] : [`${k} ${fmt(a[k]!)}→${fmt(b[k]!)}`];
    })
    .join(", ") || "none";

/** The changes a thought's `change …;` part records. */
const changesIn = (thought: string): Change[] =>
  (thought.match(/\bchange ([^;]+);/)?.[1] ?? "").split(", ").flatMap((c): Change[] => {
    const m = c.match(/^([+−]?)(\w+) (-?[\d.e+-]+)(?:→(-?[\d.e+-]+))?$/);
    if (!m) return [];
    const [, sign, name, x, y] = m;
    if (sign === "+") return [{ name: name!, to: Number(x) }];
    if (sign === "−") return [{ name: name!, from: Number(x) }];
    return y === undefined ? [] : [{ name: name!, from: Number(x), to: Number(y) }];
  });

/** Which answers an operator may give: structural ones add or drop terms, parameter ones change weights. */
export type AnswerKind = "structural" | "parameter" | "any";

/**
 * The design `d` changed in answer to the signals (in order: the alarm, the constant components, the falling
 * curve, each where `kind` allows it), with why; undefined when no signal applies. Never leaves a design empty.
 */
export const answerFeedback = (
  terms: readonly Term[],
  d: Design,
  s: FeedbackSignals,
  lastThought: string,
  kind: AnswerKind,
): { design: Design; why: string } | undefined => {
  const out: Design = { ...d };
  const why: string[] = [];
  const drop = (name: string, reason: string) => {
    if (out[name] === undefined || Object.keys(out).length <= 1) return;
    delete out[name];
    why.push(`${reason}: drop ${name}`);
  };
  if (s.hacking && kind !== "parameter" && !namedSurvival(s.hacking)) drop(s.hacking, "hacking alarm");
  for (const name of s.constant.filter((c) => !namedSurvival(c))) {
    const t = terms.find((x) => x.name === name);
    const w = out[name];
    if (!t || w === undefined) continue;
    const raised = w * 2;
    if (kind !== "structural" && raised >= t.range[0] && raised <= t.range[1]) {
      out[name] = raised;
      why.push(`${name} never changed: raise it to ${fmt(raised)}`);
    } else if (kind !== "parameter") drop(name, `${name} never changed`);
  }
  if (s.falling && kind !== "structural") {
    // A change still in the design: a rescaled or added weight still there (to its written precision), a dropped term still absent.
    const still = (c: Change) =>
      c.to === undefined ? out[c.name] === undefined : out[c.name] !== undefined && Math.abs(out[c.name]! - c.to) <= 1e-3 * Math.abs(c.to);
    const halved = changesIn(lastThought).filter(still);
    for (const c of halved) out[c.name] = c.from === undefined ? c.to! / 2 : c.to === undefined ? c.from / 2 : (c.from + c.to) / 2;
    if (halved.length) why.push(`F fell late in training: halve the last change (${halved.map((c) => c.name).join(", ")})`);
  }
  return why.length ? { design: out, why: why.join("; ") } : undefined;
};

/** Two designs of the same terms whose weights differ by one positive factor: one reward under reward normalisation. */
export const sameShape = (a: Design, b: Design): boolean => {
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length || keys.some((k) => b[k] === undefined)) return false;
  const k0 = keys.find((k) => a[k] !== 0);
  if (k0 === undefined) return keys.every((k) => b[k] === 0);
  const c = b[k0]! / a[k0]!;
  // Weights are written to 4 significant digits in the code (heuristic/terms.ts), so a factor is equal to that precision.
  return c > 0 && keys.every((k) => Math.abs(b[k]! - c * a[k]!) <= 1e-3 * Math.max(Math.abs(b[k]!), Math.abs(c * a[k]!)));
};

/** The design a heuristic code's first line records (`// heuristic design for <task>: a 1, b 0.5`); undefined for another code. */
export const designInCode = (code: string): Design | undefined => {
  const m = code.match(/^\/\/ heuristic design for [^:]+: (.*)$/m);
  if (!m) return undefined;
  const pairs = m[1]!.split(", ").map((p) => p.split(" "));
  return pairs.every((p) => p.length === 2 && Number.isFinite(Number(p[1]))) ? Object.fromEntries(pairs.map(([k, w]) => [k, Number(w)])) : undefined;
};
