import type { RewardCategory } from "../src/store/trajectory.ts";

/** Trajectory reward categories (docs/spec/method.md §2), edges given for T = 25 and scaled with T. */

export interface TrajectoryReward {
  category: RewardCategory;
  /** r(τ) */
  r: number;
}

const REFERENCE_T = 25;

/**
 * The turn count that corresponds to `turnsAt25` when the budget is T (same fraction of the budget), rounded up
 * and at least 1, so that every bucket stays reachable at small T (Direct has T = 2).
 */
const scaled = (turnsAt25: number, maxTurns: number) => Math.max(1, Math.ceil((turnsAt25 * maxTurns) / REFERENCE_T - 1e-9));

/**
 * r(τ): success in 1–3 turns +1.0, 4–7 +0.75, 8–15 +0.5, 16–25 +0.25; failure after ≥ 10 turns −0.5, after
 * fewer −0.75. "Turns" are the turns actually used (an error or early finish can fail before the budget).
 */
export const trajectoryReward = (success: boolean, turnsUsed: number, maxTurns: number): TrajectoryReward => {
  if (success) {
    if (turnsUsed <= scaled(3, maxTurns)) return { category: "fast_success", r: 1.0 };
    if (turnsUsed <= scaled(7, maxTurns)) return { category: "success", r: 0.75 };
    if (turnsUsed <= scaled(15, maxTurns)) return { category: "success", r: 0.5 };
    return { category: "slow_success", r: 0.25 };
  }
  return turnsUsed >= scaled(10, maxTurns) ? { category: "exploratory_failure", r: -0.5 } : { category: "early_abandon_failure", r: -0.75 };
};

const signedR = (r: number) => (r >= 0 ? `+${r.toFixed(2)}` : `−${Math.abs(r).toFixed(2)}`);

/** The table of method.md §2 at a turn budget T (edges scaled as `trajectoryReward` scales them), as the evolver reads it. */
export const rewardTable = (maxTurns: number): string => {
  const s = (n: number) => scaled(n, maxTurns);
  const span = (a: number, b: number) => (a > b ? "(no turn count at this T)" : a === b ? `${a}` : `${a}–${b}`);
  return [
    "| category | turns used | r |",
    "|---|---|---|",
    `| fast_success | success in ${span(1, s(3))} | ${signedR(1)} |`,
    `| success | success in ${span(s(3) + 1, s(7))} | ${signedR(0.75)} |`,
    `| success | success in ${span(s(7) + 1, s(15))} | ${signedR(0.5)} |`,
    `| slow_success | success in ${span(s(15) + 1, maxTurns)} | ${signedR(0.25)} |`,
    `| exploratory_failure | failure after ≥ ${s(10)} turns | ${signedR(-0.5)} |`,
    `| early_abandon_failure | failure after < ${s(10)} turns | ${signedR(-0.75)} |`,
  ].join("\n");
};
