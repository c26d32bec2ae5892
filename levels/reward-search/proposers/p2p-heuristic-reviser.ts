import { hpRules, scaledWithin, type HpChanges } from "../../../src/search/p2p-hp.ts";
import type { HpDirective, HpSet, HpSpace, IterationView, Reviser, ReviseContext, Revision } from "../../../src/search/p2p-ports.ts";
import type { CandidateView } from "../../../src/search/proposer.ts";
import type { RewardTask, TaskInstance } from "../task.ts";
import { designInCode } from "./feedback-signals.ts";
import { heuristicProposer } from "./heuristic-proposer.ts";

/**
 * The p2p reviser without a model (labelled "heuristic", for the offline path: tasks with F and the fitness
 * judge): it builds on the best iteration after a regression (a branch, with that iteration's HPs) and on the
 * current one otherwise; its one reward change is the heuristic proposer's answer to the reward reflection
 * (a structural one — a term added or dropped — on a plateau); its one HP change is the first HP rule the
 * diagnostics fire; its variants scale one setting per directive. It never answers "no change". It cannot read
 * the user's corrections: each is recorded as not addressed, saying so, and asked again of the next revision.
 */

const round = (x: number) => Number(x.toPrecision(3));

const parentOf = (v: IterationView, feedback: string): CandidateView => {
  const design = designInCode(v.code);
  return { index: v.iteration, thought: v.changes, code: v.code, ...(design ? { design } : {}), fitness: v.score, feedback };
};

/** The first HP rule the base configuration's diagnostics fire, as a change within bounds (none when it would not move). */
const ruleChange = (ctx: ReviseContext<RewardTask, TaskInstance>, base: IterationView): HpChanges => {
  if (base.iteration !== ctx.current.iteration) return {};
  for (const r of hpRules(ctx.configs[ctx.bestConfig]?.diagnostics ?? null)) {
    if (!r.change || !(r.change.name in ctx.space.bounds)) continue;
    const old = base.hp[r.change.name]!;
    const next = round(scaledWithin(ctx.space, r.change.name, old, r.change.factor));
    if (next !== old) return { [r.change.name]: [old, next] };
  }
  return {};
};

const lessonOf = (ctx: ReviseContext<RewardTask, TaskInstance>): string => {
  const c = ctx.current;
  const s = (x: number | null) => (x === null ? "n/a" : x.toFixed(2));
  if (c.parent === null) return `The first design (${c.changes}) scored ${s(c.score)}.`;
  const better = (c.score ?? 0) >= (ctx.best.score ?? 0);
  return better
    ? `Iteration ${c.iteration}'s change (${c.changes}) reached ${s(c.score)}, the best so far: build on it.`
    : `Iteration ${c.iteration}'s change (${c.changes}) scored ${s(c.score)}, below the best ${s(ctx.best.score)} of iteration ${ctx.best.iteration}: do not repeat it.`;
};

/** What the heuristic reviser records against a correction: words it cannot read, labelled, never pretended. */
export const HEURISTIC_CORRECTION_HOW = "not addressed: the heuristic reviser (no LLM) cannot read words; a search with --proposer llm acts on corrections";

const revise = async (ctx: ReviseContext<RewardTask, TaskInstance>): Promise<Revision> => {
  const regressed = (ctx.current.score ?? 0) < (ctx.best.score ?? 0);
  const base = regressed ? ctx.best : ctx.current;
  const kind = ctx.plateau ? "structural" : "refine";
  const feedback = base.iteration === ctx.current.iteration ? ctx.feedback : "";
  const p = await heuristicProposer().propose(kind, {
    task: ctx.task,
    instance: ctx.instance,
    parent: parentOf(base, feedback),
    feedback,
    seen: ctx.seen,
    rng: ctx.rng,
  });
  return {
    diagnosis: [`iteration ${ctx.current.iteration} scored ${ctx.current.score?.toFixed(2) ?? "n/a"}`, ...ctx.guardrails, ...ctx.hpHints].join("; "),
    lesson: lessonOf(ctx),
    basedOn: base.iteration,
    rewardChanges: [p.thought],
    structural: kind === "structural",
    noChange: false,
    code: p.code,
    hpChanges: ruleChange(ctx, base),
    ...(ctx.corrections.length ? { corrections: ctx.corrections.map((c) => ({ correction: c.index, how: HEURISTIC_CORRECTION_HOW, addressed: false })) } : {}),
  };
};

/** One setting scaled per directive: conservative halves the learning rate, aggressive doubles it, balanced doubles the entropy bonus, different moves the discount. */
const DIRECTIVE_CHANGE: Record<HpDirective, { name: string; factor: number }> = {
  conservative: { name: "learningRate", factor: 0.5 },
  aggressive: { name: "learningRate", factor: 2 },
  balanced: { name: "entCoef", factor: 2 },
  different: { name: "gaeLambda", factor: 0.9 },
};

const variantOf = (space: HpSpace, hp: HpSet, d: HpDirective): HpChanges => {
  const { name, factor } = DIRECTIVE_CHANGE[d];
  if (!(name in space.bounds)) return {};
  const old = hp[name]!;
  // A zero setting has no scale to move: the balanced variant starts the entropy bonus at 0.005.
  const next = round(old === 0 ? Math.min(space.bounds[name]![1], 0.005) : scaledWithin(space, name, old, factor));
  return next === old ? {} : { [name]: [old, next] };
};

export const HEURISTIC_REVISER_LABEL = "heuristic reviser (no LLM)";

export const heuristicReviser = (): Reviser<RewardTask, TaskInstance> => ({
  label: HEURISTIC_REVISER_LABEL,
  initial: async (ctx) => {
    const p = await heuristicProposer().propose("initial", { task: ctx.task, instance: ctx.instance, seen: new Set(), rng: ctx.rng });
    return { code: p.code, thought: p.thought };
  },
  revise,
  variants: async (ctx, directives) => directives.map((d) => variantOf(ctx.space, ctx.hp, d)),
});
