import { ConfigError, InvariantError } from "../errors.ts";
import { isCarriedEvent } from "./p2p-carried.ts";
import { applyEvent, EMPTY_BANK, foldEvents, type Bank, type BankEvent } from "../store/bank.ts";
import { lessonAdded, lessonTierChanged } from "../store/lesson-log.ts";
import { lessonMergeEvents } from "../store/lesson-merge.ts";
import { createRng } from "../util/rng.ts";
import { mean, std } from "../util/stats.ts";
import { settleAll } from "./batch.ts";
import type { SearchInstance } from "./evaluator.ts";
import type { P2pConfig } from "./p2p-config.ts";
import { bestIteration, reviseContext, viewOf, type ContextInput } from "./p2p-context.ts";
import { outstandingCorrections } from "./p2p-corrections.ts";
import { applyHpChanges, hpChangeProblem } from "./p2p-hp.ts";
import { P2P_SCHEMA_VERSION, type IterationRecord, type P2pLog, type PlanRecord, type TrainingRecord } from "./p2p-log.ts";
import { HP_DIRECTIVES, P2P_REVISER_BY, type CheckpointJudge, type HpSet, type HpSpace, type HpTrainer, type Reviser } from "./p2p-ports.ts";
import { revisionProblem } from "./p2p-revision.ts";

/**
 * The p2p strategy (docs/spec/reward-search.md §8.6), after Prompt-to-Policy's loop: per iteration one reward is
 * trained with `configs` hyper-parameter configurations × `trainSeeds` seeds, all at once; each training's
 * checkpoints are judged 0–1 and its score is the last checkpoint's; a configuration is ranked by its mean over
 * seeds (never its best seed) and the iteration's score is its best configuration's. The reviser then writes the
 * next reward and HP changes, building on any earlier iteration with that iteration's code and HPs, and the
 * variants add N − 1 configurations. Stops when the score reaches the pass threshold, after `maxIterations`, or
 * when the training budget (exact: search.budget trainings) cannot pay for another configuration. A correction the
 * user added after the search stopped (p2p-corrections.ts) lets it plan one more iteration past a pass or the
 * iteration cap, to address it; never past the budget.
 */

export type P2pStop = "passed" | "iterations" | "budget";

export interface P2pRun<T, I extends SearchInstance> {
  task: T;
  instance: I;
  /** The search's own seed (the reviser's random streams). */
  seed: number;
  /** Where a lesson was learned, e.g. the task's id. */
  source: string;
  /** Lessons of earlier searches (p2p-carried.ts), entered at the start as these events; a resume finds them logged. */
  carried?: readonly BankEvent[];
  reviser: Reviser<T, I>;
  trainer: HpTrainer<T, I>;
  judge: CheckpointJudge<T>;
  space: HpSpace;
  log: P2pLog;
  /** Trainings in all, at most (exactly, unless the search passes or runs out of iterations first). */
  budget: number;
  config: P2pConfig;
  onTraining?: (t: TrainingRecord, replayed: boolean) => void;
  onIteration?: (r: IterationRecord, plan: PlanRecord) => void;
  /** The search goes on past `stop` to plan `iteration`, because the user added the corrections `indices` for it. */
  onCorrected?: (stop: P2pStop, iteration: number, indices: number[]) => void;
}

export interface P2pResult {
  iterations: IterationRecord[];
  plans: PlanRecord[];
  /** Among the iterations scored by the latest iteration's judge version (`judgeVersion`, absent for a judge with one version). */
  best: { iteration: number; config: number; score: number; code: string; hp: HpSet; judgeVersion?: number } | undefined;
  stop: P2pStop;
  passAt: number;
  /** Trainings of the search (replayed and new) and those this process trained. */
  trainings: number;
  trained: number;
}

/** The training seeds of a configuration: the instance's own first, then others clear of the evaluation seeds; the same for every configuration (paired). */
export const trainSeedsOf = (instance: SearchInstance, n: number): number[] => {
  const out: number[] = [];
  for (let s = instance.trainSeed; out.length < n; s += 7_919) if (!instance.evalSeeds.includes(s)) out.push(s);
  return out;
};

/** The budget must buy whole configurations (every one on all its seeds), so a configuration's mean is over the same n. */
export const checkP2pBudget = (budget: number, c: P2pConfig): void => {
  if (budget % c.trainSeeds !== 0)
    throw new ConfigError(
      `search.budget: ${budget} trainings do not split into configurations of ${c.trainSeeds} seeds (search.p2p.trainSeeds); give a multiple of ${c.trainSeeds}, e.g. ${budget - (budget % c.trainSeeds) || c.trainSeeds}`,
    );
};

interface State {
  lineage: { plans: PlanRecord[]; iterations: IterationRecord[] };
  bank: Bank;
  /** Iterations whose plan's bank events (its tier changes, its lesson) the bank log holds. */
  lessonRounds: Set<number>;
  trained: number;
}

const spentOf = (plans: readonly PlanRecord[], seeds: number): number => plans.reduce((n, p) => n + p.configs.length * seeds, 0);

const budgetLeftFor = <T, I extends SearchInstance>(run: P2pRun<T, I>, s: State, it: number): boolean =>
  !!s.lineage.plans[it] || spentOf(s.lineage.plans, run.config.trainSeeds) + run.config.trainSeeds <= run.budget;

const rulesStop = <T, I extends SearchInstance>(run: P2pRun<T, I>, s: State, it: number, passAt: number): P2pStop | undefined => {
  const best = bestIteration(s.lineage.iterations);
  if (best && best.score >= passAt) return "passed";
  if (it >= run.config.maxIterations) return "iterations";
  if (!budgetLeftFor(run, s, it)) return "budget";
  return undefined;
};

/** The stop before iteration `it`, unless corrections added for it (after the search had stopped there) ask for one more the budget can pay. */
const stopOf = <T, I extends SearchInstance>(run: P2pRun<T, I>, s: State, it: number, passAt: number): P2pStop | undefined => {
  const stop = rulesStop(run, s, it, passAt);
  if (!stop || stop === "budget" || s.lineage.plans[it]) return stop;
  const added = run.log.corrections().filter((c) => c.iteration === it);
  if (added.length === 0) return stop;
  if (!budgetLeftFor(run, s, it)) return "budget";
  run.onCorrected?.(
    stop,
    it,
    added.map((c) => c.index),
  );
  return undefined;
};

const directivesFor = (n: number) => Array.from({ length: n }, (_, j) => HP_DIRECTIVES[j % HP_DIRECTIVES.length]!);

/** The configurations of an iteration: the revised HPs, then one variant per directive (each checked within bounds). */
const configsOf = async <T, I extends SearchInstance>(run: P2pRun<T, I>, hp: HpSet, hints: readonly string[], n: number, it: number) => {
  const directives = directivesFor(n - 1);
  const rng = createRng(run.seed * 1_000_003 + 500_000 + it);
  const variants = n > 1 ? await run.reviser.variants({ task: run.task, space: run.space, hp, hpHints: hints, rng }, directives) : [];
  if (variants.length !== directives.length)
    throw new InvariantError(`p2p: the reviser gave ${variants.length} HP variants for ${directives.length} directives`);
  return [
    { directive: "revised", hp },
    ...variants.map((v, j) => {
      const problem = hpChangeProblem(v, hp, run.space);
      if (problem) throw new InvariantError(`p2p: the ${directives[j]} variant: ${problem}`);
      return { directive: directives[j]!, hp: applyHpChanges(hp, v) };
    }),
  ];
};

const firstPlan = async <T, I extends SearchInstance>(run: P2pRun<T, I>, s: State, n: number): Promise<PlanRecord> => {
  // Every lesson, retired ones too: the prompt shows the active most binding first, the retired with their reasons.
  const lessons = s.bank.lessons ?? [];
  const first = await run.reviser.initial({ task: run.task, instance: run.instance, space: run.space, lessons, rng: createRng(run.seed * 1_000_003 + 1) });
  const revision = { diagnosis: first.thought, lesson: "", rewardChanges: [], structural: false, noChange: false, hpChanges: {}, plateau: false };
  return { schemaVersion: P2P_SCHEMA_VERSION, iteration: 0, parent: null, code: first.code, configs: await configsOf(run, run.space.base, [], n, 0), revision };
};

const revisedPlan = async <T, I extends SearchInstance>(run: P2pRun<T, I>, s: State, it: number, n: number, passAt: number): Promise<PlanRecord> => {
  const corrections = outstandingCorrections(run.log.corrections(), s.lineage.plans, it);
  const input: ContextInput<T, I> = { ...run, lineage: s.lineage, bank: s.bank, passAt, plateau: run.config.plateau, corrections };
  const ctx = reviseContext(input, it);
  const r = await run.reviser.revise(ctx);
  const base = (i: number) => (s.lineage.iterations[i] ? viewOf(s.lineage, i) : undefined);
  const problem = revisionProblem(r, { iteration: it, plateau: ctx.plateau, space: run.space, base, outstanding: corrections });
  if (problem) throw new InvariantError(`p2p: the reviser (${run.reviser.label}) broke a rule at iteration ${it}: ${problem}`);
  const from = base(r.basedOn)!;
  const hp = applyHpChanges(from.hp, r.hpChanges);
  const revision = {
    diagnosis: r.diagnosis,
    lesson: r.lesson,
    rewardChanges: r.rewardChanges,
    structural: r.structural,
    noChange: r.noChange,
    hpChanges: Object.fromEntries(Object.entries(r.hpChanges).map(([k, v]) => [k, [v[0], v[1]] as [number, number]])),
    plateau: ctx.plateau,
    ...(r.note ? { note: r.note } : {}),
    ...(r.corrections?.length ? { corrections: r.corrections } : {}),
    ...(r.tierChanges?.length ? { tierChanges: r.tierChanges.map((c) => ({ ...c })) } : {}),
  };
  const code = r.noChange ? from.code : r.code;
  const configs = await configsOf(run, hp, ctx.hpHints, n, it);
  const plan: PlanRecord = { schemaVersion: P2P_SCHEMA_VERSION, iteration: it, parent: r.basedOn, code, configs, revision };
  // A tier change that does not apply to the bank is refused before the plan is written.
  tierChangeEvents(s.bank, plan);
  return plan;
};

/** The plan's tier changes as bank events on `bank`, in order, each checked (the lesson exists, leaves its current tier, a reason). */
const tierChangeEvents = (bank: Bank, p: PlanRecord): { events: BankEvent[]; bank: Bank } => {
  const events: BankEvent[] = [];
  for (const [k, c] of (p.revision.tierChanges ?? []).entries()) {
    let e: BankEvent;
    try {
      e = lessonTierChanged(bank, { id: c.id, to: c.to, reason: c.reason, by: P2P_REVISER_BY, round: p.iteration });
    } catch (err) {
      throw new InvariantError(`p2p: plan ${p.iteration}'s tierChanges.${k}: ${(err as Error).message}`);
    }
    if (e.type === "lesson_tier_changed" && e.from !== c.from)
      throw new InvariantError(`p2p: plan ${p.iteration}'s tierChanges.${k}.from: ${c.from}, but lesson '${c.id}' is ${e.from}`);
    events.push(e);
    bank = applyEvent(bank, e);
  }
  return { events, bank };
};

/**
 * A plan's bank events, once (a resume finds them in the log: none is applied twice): the tier changes the reviser
 * asked for, then its lesson entering as STRONG, then the merge rule.
 */
const addPlanEvents = async (run: P2pRun<unknown, SearchInstance>, s: State, p: PlanRecord): Promise<void> => {
  const text = p.revision.lesson.trim();
  // A plan whose events are already in the log (a resume) adds none again, even when a merge has since replaced its lesson.
  if (s.lessonRounds.has(p.iteration)) return;
  let { events, bank } = tierChangeEvents(s.bank, p);
  if (text) {
    const added = lessonAdded(bank, { text, round: p.iteration, source: lessonSource(run, p), reason: "p2p reviser" });
    events.push(added);
    bank = applyEvent(bank, added);
    for (const e of await lessonMergeEvents(bank, p.iteration)) {
      events.push(e);
      bank = applyEvent(bank, e);
    }
  }
  if (events.length === 0) return;
  run.log.appendBankEvents(events);
  s.bank = bank;
  s.lessonRounds.add(p.iteration);
};

const lessonSource = (run: Pick<P2pRun<unknown, SearchInstance>, "source">, p: PlanRecord) => `${run.source}, p2p iteration ${p.iteration - 1}`;

const planOf = async <T, I extends SearchInstance>(run: P2pRun<T, I>, s: State, it: number, passAt: number): Promise<PlanRecord> => {
  const logged = s.lineage.plans[it];
  if (logged) {
    await addPlanEvents(run as P2pRun<unknown, SearchInstance>, s, logged);
    return logged;
  }
  const left = run.budget - spentOf(s.lineage.plans, run.config.trainSeeds);
  const n = Math.min(run.config.configs, Math.floor(left / run.config.trainSeeds));
  // No correction is added between reading the outstanding ones and writing the plan that answers them.
  const plan = await run.log.planning(async () => {
    const p = it === 0 ? await firstPlan(run, s, n) : await revisedPlan(run, s, it, n, passAt);
    run.log.appendPlan(p);
    return p;
  });
  s.lineage.plans.push(plan);
  await addPlanEvents(run as P2pRun<unknown, SearchInstance>, s, plan);
  return plan;
};

const judged = async <T, I extends SearchInstance>(run: P2pRun<T, I>, t: Omit<TrainingRecord, "judged" | "score">): Promise<TrainingRecord> => {
  if (t.outcome.kind === "error") return { ...t, judged: [], score: 0 };
  const checks = [];
  for (const cp of t.outcome.checkpoints) {
    const j = await run.judge.judge(run.task, cp, { iteration: t.iteration, config: t.config, seed: t.seed });
    if (!(j.score >= 0 && j.score <= 1)) throw new InvariantError(`p2p: the judge (${run.judge.label}) scored ${j.score}, outside 0–1`);
    checks.push({
      step: cp.step,
      fraction: cp.fraction,
      score: j.score,
      detail: j.detail,
      ...(j.judgeVersion === undefined ? {} : { judgeVersion: j.judgeVersion }),
    });
  }
  return { ...t, judged: checks, score: checks.at(-1)!.score };
};

/** One training of a plan's configuration on one seed: read back when the log has it, else trained, judged and written. */
const trainingOf = async <T, I extends SearchInstance>(run: P2pRun<T, I>, s: State, p: PlanRecord, config: number, seed: number): Promise<TrainingRecord> => {
  const logged = run.log.training(p.iteration, config, seed);
  if (logged) {
    run.onTraining?.(logged, true);
    return logged;
  }
  const hp = p.configs[config]!.hp;
  s.trained++;
  const outcome = await run.trainer.train({
    task: run.task,
    instance: run.instance,
    code: p.code,
    hp,
    seed,
    label: `p2p-it${p.iteration}-c${config}-s${seed}`,
  });
  const t = await judged(run, { schemaVersion: P2P_SCHEMA_VERSION, iteration: p.iteration, config, seed, hp: { ...hp }, outcome });
  run.log.writeTraining(t);
  run.onTraining?.(t, false);
  return t;
};

/** The judge version that scored the trainings' checkpoints (the highest, should they differ); undefined for a judge with one version. */
const judgeVersionOf = (trainings: readonly TrainingRecord[][]): number | undefined => {
  const versions = trainings.flat().flatMap((t) => t.judged.flatMap((j) => j.judgeVersion ?? []));
  return versions.length ? Math.max(...versions) : undefined;
};

/**
 * The iteration's record: each configuration's scores over its seeds, the best configuration by its mean (the
 * first of equals), and whether it beats the earlier iterations scored by the same judge version.
 */
const iterationOf = (p: PlanRecord, trainings: readonly TrainingRecord[][], seeds: readonly number[], earlier: readonly IterationRecord[]): IterationRecord => {
  const configs = p.configs.map((c, i) => {
    const scores = trainings[i]!.map((t) => t.score);
    return { config: i, directive: c.directive, hp: c.hp, seeds: [...seeds], scores, mean: mean(scores), std: std(scores) };
  });
  const best = configs.reduce((b, c) => (c.mean > configs[b]!.mean ? c.config : b), 0);
  const score = configs[best]!.mean;
  const judgeVersion = judgeVersionOf(trainings);
  const before = (judgeVersion === undefined ? bestIteration(earlier) : bestIteration(earlier, judgeVersion))?.score;
  return {
    schemaVersion: P2P_SCHEMA_VERSION,
    iteration: p.iteration,
    parent: p.parent,
    configs,
    best,
    score,
    newBest: before === undefined || score > before,
    ...(judgeVersion === undefined ? {} : { judgeVersion }),
  };
};

const runIteration = async <T, I extends SearchInstance>(run: P2pRun<T, I>, s: State, p: PlanRecord): Promise<IterationRecord> => {
  const seeds = trainSeedsOf(run.instance, run.config.trainSeeds);
  const all = await settleAll(p.configs.flatMap((_, c) => seeds.map((seed) => trainingOf(run, s, p, c, seed))));
  const trainings = p.configs.map((_, c) => all.slice(c * seeds.length, (c + 1) * seeds.length));
  const r = iterationOf(p, trainings, seeds, s.lineage.iterations);
  run.log.appendIteration(r);
  return r;
};

const readState = <T, I extends SearchInstance>(run: P2pRun<T, I>): State => {
  const plans = run.log.plans();
  const iterations = run.log.iterations();
  plans.forEach((p, i) => {
    if (p.iteration !== i) throw new InvariantError(`p2p: plans.jsonl line ${i + 1} is iteration ${p.iteration}; the lineage is out of order`);
  });
  if (iterations.length > plans.length || iterations.some((r, i) => r.iteration !== i))
    throw new InvariantError(
      `p2p: iterations.jsonl holds ${iterations.length} iterations for ${plans.length} plans, or out of order; the lineage belongs to another search`,
    );
  const events = run.log.bankEvents();
  const lessonRounds = new Set(
    events.filter((e) => e.type === "lesson_added" || (e.type === "lesson_tier_changed" && e.by === P2P_REVISER_BY)).map((e) => e.round),
  );
  return { lineage: { plans, iterations }, bank: events.length ? foldEvents(events) : EMPTY_BANK, lessonRounds, trained: 0 };
};

const sameEvents = (a: readonly BankEvent[], b: readonly BankEvent[]) => JSON.stringify(a) === JSON.stringify(b);

/**
 * Enters the carried lessons at the start of a search, once: a resume that finds them logged adds nothing (and is
 * refused when asked to carry others); a search that has planned an iteration without them is refused.
 */
const carryLessons = (run: P2pRun<unknown, SearchInstance>, s: State): void => {
  if (!run.carried?.length) return;
  const logged = run.log.bankEvents().filter(isCarriedEvent);
  if (logged.length) {
    if (sameEvents(logged, run.carried)) return;
    throw new ConfigError(
      `--lessons-from: this search began with ${logged.length} other carried lesson(s) (bank-events.jsonl); resume it without --lessons-from, or start a new search`,
    );
  }
  if (s.lineage.plans.length)
    throw new ConfigError(`--lessons-from: lessons enter a search at its start; this one has planned ${s.lineage.plans.length} iteration(s) without them`);
  run.log.appendBankEvents(run.carried);
  s.bank = run.carried.reduce(applyEvent, s.bank);
};

const resultOf = (s: State, stop: P2pStop, passAt: number, seeds: number): P2pResult => {
  const b = bestIteration(s.lineage.iterations);
  const plan = b ? s.lineage.plans[b.iteration]! : undefined;
  return {
    iterations: s.lineage.iterations,
    plans: s.lineage.plans,
    best:
      b && plan
        ? {
            iteration: b.iteration,
            config: b.best,
            score: b.score,
            code: plan.code,
            hp: b.configs[b.best]!.hp,
            ...(b.judgeVersion === undefined ? {} : { judgeVersion: b.judgeVersion }),
          }
        : undefined,
    stop,
    passAt,
    trainings: spentOf(s.lineage.plans.slice(0, s.lineage.iterations.length), seeds),
    trained: s.trained,
  };
};

export const runP2p = async <T, I extends SearchInstance>(run: P2pRun<T, I>): Promise<P2pResult> => {
  checkP2pBudget(run.budget, run.config);
  const passAt = run.config.passThreshold ?? run.judge.passAt;
  const s = readState(run);
  carryLessons(run as P2pRun<unknown, SearchInstance>, s);
  for (let it = 0; ; it++) {
    const stop = s.lineage.iterations[it] ? undefined : stopOf(run, s, it, passAt);
    if (stop) return resultOf(s, stop, passAt, run.config.trainSeeds);
    if (s.lineage.iterations[it]) continue;
    const plan = await planOf(run, s, it, passAt);
    const r = await runIteration(run, s, plan);
    s.lineage.iterations.push(r);
    run.onIteration?.(r, plan);
  }
};
