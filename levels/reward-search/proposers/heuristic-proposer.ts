import type { Rng } from "../../../src/util/rng.ts";
import { HEURISTIC_AGENT, mutateTerms } from "../heuristic/designer.ts";
import { libraryTerms } from "../heuristic/term-library.ts";
import { baseOf, composeTerms, type Design, type Term } from "../heuristic/terms.ts";
import { firstSentences, type CandidateView, type Operator, type Proposal, type SelfEvaluation } from "../../../src/search/proposer.ts";
import type { RewardProposeContext, RewardProposer } from "../search/evaluator.ts";
import { namedSurvival } from "../hacking-rule.ts";
import { answerFeedback, changeText, designInCode, readSignals, sameShape, type AnswerKind } from "./feedback-signals.ts";

/**
 * The heuristic proposer (no LLM, labelled): every operator is a change to a term design over the generic term
 * library (heuristic/term-library.ts: terms matched to the task's observation, info and action names, never its
 * hand-written reward), so the strategies can be compared without a model.
 * - initial: the library's base terms for the task (then mutations of them, so K initial samples differ);
 * - refine, parameter and structural mutation, path reasoning: first the answer to the reward reflection
 *   (feedback-signals.ts: drop the term the hacking alarm names, raise or drop components that never changed,
 *   halve the last change when F fell), else a random change: refine / parameter rescale one weight, structural
 *   adds or drops a term (designer.ts `mutate`); each thought records its change, so a child can halve it;
 * - crossover: each term of the union of the elites' term sets, taken from a random elite whose feedback does not
 *   flag it (hacking alarm, never changed), left out where every elite that has it flags it — RF-Agent's crossover
 *   judges the components by the feedback;
 * - path reasoning: mutate the best of the ancestors; different thought: a term set unlike every shown design's,
 *   without the terms their feedback flags.
 * Thought alignment (RF-Agent) re-writes the thought from the design but keeps its change record, so a child
 * under RF-Agent halves the last change as one under Eureka does.
 * A design that differs from a tried one only by a positive scale is the same reward under reward normalisation and
 * is not proposed again. Self-evaluation is a deterministic score of the code: coverage of the library's base terms.
 * No repair: its codes are composed from the library, so they do not fail a check.
 */

const describe = (d: Design) =>
  Object.entries(d)
    .map(([k, w]) => `${k} ${Number(w.toPrecision(3))}`)
    .join(", ") || "no terms";

/** The task's terms: the generic library matched to its names. */
type Library = { id: string; terms: readonly Term[] };

const designOf = (lib: Library, c: CandidateView | undefined): Design => c?.design ?? baseOf(lib.terms);

const isStructural = (why: string) => why.startsWith("add") || why.startsWith("drop");

/** `mutate` until it makes the kind of change asked for (structural: add/drop a term; parameter: rescale a weight). */
const mutateKind = (lib: Library, d: Design, rng: Rng, kind: "structural" | "parameter" | "any"): { design: Design; why: string } => {
  let last = mutateTerms(lib.terms, d, rng);
  for (let i = 0; i < 30 && kind !== "any" && isStructural(last.why) !== (kind === "structural"); i++) last = mutateTerms(lib.terms, d, rng);
  return last;
};

/** The terms a candidate's feedback flags: the one its hacking alarm names and those that never changed (survival terms spared). */
const flaggedBy = (c: CandidateView): Set<string> => {
  const s = readSignals(c.feedback);
  return new Set([...(s.hacking ? [s.hacking] : []), ...s.constant].filter((n) => !namedSurvival(n)));
};

const crossover = (lib: Library, elites: readonly CandidateView[], rng: Rng): { design: Design; why: string } => {
  const designs = elites.map((e) => designOf(lib, e));
  const flags = elites.map(flaggedBy);
  const names = [...new Set(designs.flatMap((d) => Object.keys(d)))];
  const out: Design = {};
  const from: string[] = [];
  const skipped: string[] = [];
  for (const n of names) {
    const having = designs.map((d, i) => [d, i] as const).filter(([d]) => d[n] !== undefined);
    const sound = having.filter(([, i]) => !flags[i]!.has(n));
    if (!sound.length) {
      skipped.push(n);
      continue;
    }
    // A term in only some parents is kept with the share of parents that have it.
    if (rng.random() >= having.length / designs.length) continue;
    const [d, i] = rng.choice(sound);
    out[n] = d[n]!;
    from.push(`${n} from #${elites[i]!.index}`);
  }
  if (Object.keys(out).length === 0) Object.assign(out, designs[0]);
  const left = skipped.length ? `; left out by the feedback: ${skipped.join(", ")}` : "";
  return { design: out, why: `cross ${elites.map((e) => `#${e.index}`).join(" × ")}: ${from.join(", ") || "the first parent's terms"}${left}` };
};

/**
 * Different thought: a term set unlike every shown design's — the library's terms none of them uses, each used
 * one kept with probability ½, all at the library's default weights; never empty, never a shown term set.
 */
const differentForm = (lib: Library, shown: readonly CandidateView[], rng: Rng): { design: Design; why: string } => {
  const sets = shown.map((c) => Object.keys(designOf(lib, c)).sort().join(","));
  const used = new Set(shown.flatMap((c) => Object.keys(designOf(lib, c))));
  const flagged = new Set(shown.flatMap((c) => [...flaggedBy(c)]));
  const pool = lib.terms.filter((t) => !flagged.has(t.name));
  let design: Design = {};
  for (let i = 0; i < 10 && (Object.keys(design).length === 0 || sets.includes(Object.keys(design).sort().join(","))); i++) {
    design = Object.fromEntries(pool.filter((t) => !used.has(t.name) || rng.random() < 0.5).map((t) => [t.name, t.weight]));
  }
  if (Object.keys(design).length === 0) design = baseOf(lib.terms);
  const fresh = Object.keys(design).filter((n) => !used.has(n));
  return {
    design,
    why: `a different form from ${shown.map((c) => `#${c.index}`).join(", ") || "nothing shown"}: ${fresh.length ? `new terms ${fresh.join(", ")}` : "a subset of their terms"}`,
  };
};

/** The answer to `c`'s reward reflection (Eureka's refine: the feedback turn), else a random change of the kind asked for. */
const readAndChange = (
  lib: Library,
  c: CandidateView | undefined,
  feedback: string | undefined,
  rng: Rng,
  kind: AnswerKind,
): { design: Design; why: string } => {
  const d = designOf(lib, c);
  return answerFeedback(lib.terms, d, readSignals(feedback ?? c?.feedback ?? ""), c?.thought ?? "", kind) ?? mutateKind(lib, d, rng, kind);
};

/** A design, why it was made, and the design it changed when that is not the parent's (path reasoning: the best ancestor's). */
type Made = { design: Design; why: string; from?: Design };

const step = (lib: Library, kind: Operator, ctx: RewardProposeContext): Made => {
  const rng = ctx.rng;
  switch (kind) {
    case "initial":
      return ctx.seen.size === 0 ? { design: baseOf(lib.terms), why: "the library's base terms" } : mutateKind(lib, baseOf(lib.terms), rng, "any");
    case "refine":
      return readAndChange(lib, ctx.parent, ctx.feedback, rng, "any");
    case "structural":
      return readAndChange(lib, ctx.parent, undefined, rng, "structural");
    case "parameter":
      return readAndChange(lib, ctx.parent, undefined, rng, "parameter");
    case "crossover":
      return ctx.elites && ctx.elites.length >= 2 ? crossover(lib, ctx.elites, rng) : mutateKind(lib, designOf(lib, ctx.parent), rng, "parameter");
    case "path": {
      const line = ctx.ancestors?.length ? ctx.ancestors : ctx.parent ? [ctx.parent] : [];
      const best = [...line].sort((a, b) => (b.fitness ?? -Infinity) - (a.fitness ?? -Infinity))[0];
      const m = readAndChange(lib, best, undefined, rng, "any");
      return { design: m.design, why: `best of ${line.length} ancestor(s) is #${best?.index ?? "-"}: ${m.why}`, from: designOf(lib, best) };
    }
    case "different":
      return differentForm(lib, [...(ctx.parent ? [ctx.parent] : []), ...(ctx.others ?? [])], rng);
  }
};

const libraryOf = (task: RewardProposeContext["task"]): Library => ({ id: task.id, terms: libraryTerms(task) });

export const heuristicProposer = (): RewardProposer => ({
  label: HEURISTIC_AGENT,
  propose: async (kind, ctx): Promise<Proposal> => {
    const lib = libraryOf(ctx.task);
    const code = (d: Design) => composeTerms(lib.id, lib.terms, d);
    // Designs tried, from the codes' first lines: one that differs from them only by a positive scale is not new.
    const tried = [...ctx.seen].map(designInCode).filter((d): d is Design => d !== undefined);
    const isTried = (d: Design) => ctx.seen.has(code(d)) || tried.some((t) => sameShape(t, d));
    let made: Made = step(lib, kind, ctx);
    // Avoid spending a training on a design already tried: a few more draws of the same operator, then changes of
    // the term set (a one-term design has no rescale that is new).
    for (let i = 0; i < 20 && isTried(made.design); i++) made = mutateKind(lib, made.design, ctx.rng, kind === "structural" || i >= 10 ? "structural" : "any");
    const start = made.from ?? (ctx.parent ? designOf(lib, ctx.parent) : undefined);
    const from = start ? `; change ${changeText(start, made.design)}` : "";
    return { thought: `${kind}: ${made.why}${from}; design ${describe(made.design)}.`, code: code(made.design), design: made.design };
  },
  selfEvaluate: async ({ code }, ctx): Promise<SelfEvaluation> => ({ value: coverageScore(libraryOf(ctx.task).terms, code) }),
  // The change record (`change …;`) stays: the halving answer to a falling F curve reads it from the parent's thought.
  align: async (_code, thought, ctx) =>
    [firstSentences(`The reward sums ${describe(ctx.design ?? {})}.`, 1), thought.match(/\bchange [^;]+;/)?.[0] ?? ""].filter(Boolean).join(" "),
});

/**
 * The heuristic v_self: 2 · (share of the library's base terms the code computes) − 1, minus 0.1 per extra
 * term, clipped to [−1, 1]. A function of the code alone: a term counts when its `const <name> =` line is there.
 */
export const coverageScore = (terms: readonly Term[], code: string): number => {
  const has = (name: string) => new RegExp(`\\bconst ${name} =`).test(code);
  const base = terms.filter((t) => t.base);
  if (base.length === 0) return 0;
  const covered = base.filter((t) => has(t.name)).length / base.length;
  const extra = terms.filter((t) => !t.base && has(t.name)).length;
  return Math.max(-1, Math.min(1, 2 * covered - 1 - 0.1 * extra));
};
