import type { Bank } from "../store/bank.ts";
import { createRng } from "../util/rng.ts";
import { mean, std } from "../util/stats.ts";
import type { CorrectionRecord } from "./p2p-corrections.ts";
import type { IterationRecord, P2pLog, PlanRecord, TrainingRecord } from "./p2p-log.ts";
import { hpRules, meanDiagnostics } from "./p2p-hp.ts";
import type { CheckpointRow, HpSpace, IterationView, ReviseContext } from "./p2p-ports.ts";

/**
 * What the p2p reviser is shown before an iteration (docs/spec/reward-search.md §8.6): the current and the best
 * iteration, the short history, the current iteration's checkpoint table (mean, std, success rate over seeds per
 * configuration), guardrails (a reward term over 90 % of the reward's magnitude; a plateau), the optimiser
 * diagnostics of its best configuration with the HP rules they fire, the lessons, and the user's corrections it
 * must address; and what it may read of the lineage on its own (LineageReads).
 */

/** A term above this share of the summed term magnitudes dominates the reward (Prompt-to-Policy's guardrail). */
const DOMINANT_TERM_SHARE = 0.9;

export interface Lineage {
  plans: readonly PlanRecord[];
  iterations: readonly IterationRecord[];
}

const changesText = (p: PlanRecord): string => {
  if (p.parent === null) return "first design";
  const hp = Object.entries(p.revision.hpChanges).map(([k, [a, b]]) => `${k} ${a} → ${b}`);
  const reward = p.revision.noChange ? ["no reward change"] : p.revision.rewardChanges;
  return [...(p.revision.structural ? ["structural rewrite"] : []), ...reward, ...hp].join("; ") || "no change";
};

export const viewOf = (l: Lineage, i: number): IterationView => {
  const r = l.iterations[i]!;
  const p = l.plans[i]!;
  return { iteration: i, parent: r.parent, code: p.code, hp: r.configs[r.best]!.hp, score: r.score, changes: changesText(p) };
};

/** The judge version of the latest iteration that names one; undefined for a judge with one version. */
const latestJudgeVersion = (iterations: readonly IterationRecord[]): number | undefined =>
  iterations.filter((r) => r.judgeVersion !== undefined).at(-1)?.judgeVersion;

/**
 * The best iteration so far by its score (the first of equals) among those scored by judge version `version` (by
 * default the latest iteration's): scores under two versions of the intent's code judge measure two intents, so
 * they are never compared (docs/spec/reward-search.md §8.6). An iteration naming no version (a judge with one
 * version; every training failed, scoring 0) counts under any. Undefined before any.
 */
export const bestIteration = (iterations: readonly IterationRecord[], version = latestJudgeVersion(iterations)): IterationRecord | undefined =>
  iterations.reduce<IterationRecord | undefined>(
    (b, r) => ((r.judgeVersion === undefined || r.judgeVersion === version) && (!b || r.score > b.score) ? r : b),
    undefined,
  );

/** Iterations after the last one that set a new best. */
const sinceBest = (iterations: readonly IterationRecord[]): number => {
  let last = -1;
  iterations.forEach((r, i) => {
    if (r.newBest) last = i;
  });
  return iterations.length - 1 - last;
};

/** The trainings of an iteration, by configuration then seed. */
const trainingsOf = (log: P2pLog, r: IterationRecord): TrainingRecord[][] => r.configs.map((c) => c.seeds.map((s) => log.training(r.iteration, c.config, s)!));

/** Per configuration and checkpoint: the mean, std and success rate (score ≥ passAt) over its seeds. */
export const checkpointTable = (trainings: readonly TrainingRecord[][], passAt: number): CheckpointRow[] =>
  trainings.flatMap((seeds, config) => {
    const n = Math.max(...seeds.map((t) => t.judged.length), 1);
    return Array.from({ length: n }, (_, j) => {
      // A failed training scores 0 at every checkpoint: its seed counts, never dropped.
      const at = seeds.map((t) => t.judged[j]?.score ?? 0);
      const fraction = seeds.find((t) => t.judged[j])?.judged[j]?.fraction ?? (j + 1) / n;
      return { config, fraction, mean: mean(at), std: std(at), successRate: at.filter((x) => x >= passAt).length / at.length };
    });
  });

/** Warnings about the reward's terms and the search's progress, each a sentence. */
const guardrails = (best: readonly TrainingRecord[], since: number, plateau: number): string[] => {
  const out: string[] = [];
  const terms = new Map<string, number>();
  for (const t of best) if (t.outcome.kind === "result") for (const [k, v] of Object.entries(t.outcome.terms)) terms.set(k, (terms.get(k) ?? 0) + Math.abs(v));
  const total = [...terms.values()].reduce((a, b) => a + b, 0);
  const top = [...terms].sort((a, b) => b[1] - a[1])[0];
  if (top && total > 0 && top[1] / total > DOMINANT_TERM_SHARE)
    out.push(`the term ${top[0]} is ${Math.round((100 * top[1]) / total)} % of the reward's magnitude: the others barely steer the policy`);
  if (since >= plateau) out.push(`no new best for ${since} iteration${since === 1 ? "" : "s"}: the reward needs a structural rewrite, not another tweak`);
  return out;
};

export interface ContextInput<T, I> {
  task: T;
  instance: I;
  seed: number;
  log: P2pLog;
  lineage: Lineage;
  bank: Bank;
  space: HpSpace;
  passAt: number;
  plateau: number;
  /** The corrections outstanding for the iteration planned (p2p-corrections.ts). */
  corrections: readonly CorrectionRecord[];
}

export const reviseContext = <T, I>(x: ContextInput<T, I>, iteration: number): ReviseContext<T, I> => {
  const { lineage } = x;
  const history = lineage.iterations.map((_, i) => viewOf(lineage, i));
  const last = lineage.iterations[iteration - 1]!;
  const trainings = trainingsOf(x.log, last);
  const configs = last.configs.map((c, i) => ({
    config: c.config,
    hp: c.hp,
    diagnostics: meanDiagnostics(trainings[i]!.map((t) => (t.outcome.kind === "result" ? t.outcome.diagnostics : null))),
  }));
  const since = sinceBest(lineage.iterations);
  const bestTrainings = trainings[last.best]!;
  return {
    task: x.task,
    instance: x.instance,
    iteration,
    current: history[iteration - 1]!,
    best: history[bestIteration(lineage.iterations)!.iteration]!,
    history,
    table: checkpointTable(trainings, x.passAt),
    bestConfig: last.best,
    configs,
    guardrails: guardrails(bestTrainings, since, x.plateau),
    hpHints: hpRules(configs[last.best]!.diagnostics)
      .filter((r) => !r.change || r.change.name in x.space.bounds)
      .map((r) => r.text),
    feedback: bestTrainings.map((t) => `seed ${t.seed}: ${t.outcome.feedback}`).join("\n"),
    sinceBest: since,
    plateau: since >= x.plateau,
    space: x.space,
    // The prompt shows the active lessons most binding first and the retired ones with their reasons (agents/lessons-block.ts).
    lessons: x.bank.lessons ?? [],
    corrections: x.corrections,
    seen: new Set(lineage.plans.map((p) => p.code)),
    rng: createRng(x.seed * 1_000_003 + iteration + 1),
    lineage: {
      plans: lineage.plans.slice(0, iteration),
      iterations: lineage.iterations.slice(0, iteration),
      training: (i, c, s) => (i < iteration ? x.log.training(i, c, s) : undefined),
      lessons: x.bank.lessons ?? [],
      passAt: x.passAt,
      ...(x.log.dir === undefined ? {} : { dir: x.log.dir }),
    },
  };
};
