import type { RewardCategory } from "../src/store/trajectory.ts";
import { trajectoryReward } from "./reward.ts";
import { applyEvent, BankEvent, capEvents, type Bank, type BankEventInput, type Evidence } from "../src/store/bank.ts";
import { cite, mistakeWeight, weightOf } from "../src/store/bank-weights.ts";
import type { Trajectory } from "../src/store/trajectory.ts";

/** A trajectory as an evolver sees it: a stable id, r(τ) and its category (docs/spec/method.md §2). */
export interface Labelled {
  id: string;
  trajectory: Trajectory;
  r: number;
  category: RewardCategory;
}

/** "labelled": r shown and used for sorting and weights; "no_reward": the ablation of docs/spec/method.md §7. */
export type EvolverMode = "labelled" | "no_reward";

/** Caps M_max / N_max per level (docs/spec/method.md §3), enforced in code after every update. */
export interface BankCaps {
  skills: number;
  mistakes: number;
}
export const DEFAULT_CAPS: BankCaps = { skills: 10, mistakes: 5 };

/** Labels trajectories with r(τ) from the turns actually used; ids default to `t<index>` (1-based) unless given. */
export const labelTrajectories = (ts: readonly Trajectory[], ids?: readonly string[]): Labelled[] =>
  ts.map((t, i) => ({ id: ids?.[i] ?? `t${i + 1}`, trajectory: t, ...trajectoryReward(t.success, t.steps.length, t.maxTurns) }));

/** Highest r first; ties keep input order (Array.prototype.sort is stable). */
export const byReward = (ls: readonly Labelled[]): Labelled[] => [...ls].sort((a, b) => b.r - a.r);

const batchMeanR = (ls: readonly Labelled[]): number | undefined => (ls.length ? ls.reduce((s, l) => s + l.r, 0) / ls.length : undefined);

/**
 * An entry's evidence and weight after citing `sources` on top of `prior` (docs/spec/method.md §3): for a skill the running
 * mean of every cited r, the batch mean when nothing was ever cited, partial skills capped; for a mistake the
 * number of cited failures (mistakeWeight). The ablation is unweighted.
 */
export const weigh = (
  prior: Evidence,
  sources: readonly Labelled[],
  batch: readonly Labelled[],
  opts: { kind: "skill" | "mistake"; partial?: boolean; mode: EvolverMode },
): { evidence: Evidence; weight: number } => {
  if (opts.mode === "no_reward") return { evidence: prior, weight: 0.5 };
  const evidence = cite(
    prior,
    sources.map((s) => s.r),
  );
  if (opts.kind === "mistake") return { evidence, weight: mistakeWeight(evidence) };
  const fallbackMeanR = batchMeanR(batch);
  return { evidence, weight: weightOf(evidence, { partial: opts.partial ?? false, ...(fallbackMeanR === undefined ? {} : { fallbackMeanR }) }) };
};

export const seedsOf = (sources: readonly Labelled[], prior: readonly number[] = []): number[] =>
  [...new Set([...prior, ...sources.map((s) => s.trajectory.seed)])].sort((a, b) => a - b);

export const event = (e: BankEventInput): BankEvent => BankEvent.parse(e);

/** The update's events followed by the cap prunes of the folded result (docs/spec/method.md §3, ours). */
export const withCaps = (bank: Bank, events: BankEvent[], caps: BankCaps, round: number): BankEvent[] => [
  ...events,
  ...capEvents(events.reduce(applyEvent, bank), caps, round),
];

/** A fresh id `<prefix><round>_<k>` that no entry of the bank uses. */
export const idMaker = (bank: Bank, prefix: string, round: number) => {
  const used = new Set([...bank.skills, ...bank.mistakes].map((e) => e.id));
  let k = 0;
  return (): string => {
    let id: string;
    do id = `${prefix}${round}_${++k}`;
    while (used.has(id));
    used.add(id);
    return id;
  };
};
