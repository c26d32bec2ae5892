import { addressedProblem, type CorrectionRecord } from "./p2p-corrections.ts";
import { hpChangeProblem, type HpChanges } from "./p2p-hp.ts";
import type { HpSet, HpSpace, Revision } from "./p2p-ports.ts";

/**
 * The reviser's rules (docs/spec/reward-search.md §8.6), checked on every revision whoever wrote it: it builds on
 * an iteration that exists; it makes 1–2 planned reward changes (causal attribution), any number when it rewrites
 * the reward's structure, none when it keeps the code ("no change"); after a plateau a structural rewrite is
 * required; its hyper-parameter changes start from the values of the iteration it builds on and stay within
 * bounds; it says how it addresses each of the user's outstanding corrections. A problem names the field.
 */

export const MAX_REWARD_CHANGES = 2;

export interface RevisionRules {
  /** The iteration being planned: basedOn must be below it. */
  iteration: number;
  plateau: boolean;
  space: HpSpace;
  /** The code and hyper-parameters of each earlier iteration (what basedOn restores). */
  base: (iteration: number) => { code: string; hp: HpSet } | undefined;
  /** The user's corrections this revision must address (p2p-corrections.ts). */
  outstanding: readonly CorrectionRecord[];
}

export const revisionProblem = (
  r: Pick<Revision, "basedOn" | "rewardChanges" | "structural" | "noChange" | "code"> & {
    hpChanges: HpChanges;
    corrections?: readonly { correction: number; how: string }[] | undefined;
  },
  rules: RevisionRules,
): string | null => {
  const base = rules.base(r.basedOn);
  if (!Number.isInteger(r.basedOn) || r.basedOn < 0 || r.basedOn >= rules.iteration || !base)
    return `basedOn: ${r.basedOn} is not an earlier iteration; name one of 0–${rules.iteration - 1}`;
  if (rules.plateau && (r.noChange || !r.structural))
    return `structural: no new best for several iterations, so a structural rewrite of the reward is required (got structural ${r.structural}, noChange ${r.noChange})`;
  if (r.noChange && r.rewardChanges.length > 0) return `rewardChanges: "no change" keeps the code, so it plans no change (got ${r.rewardChanges.length})`;
  if (!r.noChange && !r.structural && (r.rewardChanges.length < 1 || r.rewardChanges.length > MAX_REWARD_CHANGES))
    return `rewardChanges: ${r.rewardChanges.length} planned changes; make 1–${MAX_REWARD_CHANGES} so their effect can be told apart, or mark a structural rewrite`;
  if (!r.noChange && r.code.trim() === base.code.trim()) return `code: the same as iteration ${r.basedOn}'s; change it, or answer "no change"`;
  return hpChangeProblem(r.hpChanges, base.hp, rules.space) ?? addressedProblem(r.corrections ?? [], rules.outstanding);
};
