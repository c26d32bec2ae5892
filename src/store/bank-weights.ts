import type { Evidence } from "./bank.ts";

/**
 * Entry weights (docs/spec/method.md §3): r_k = clamp((r̄_src + 1) / 2, 0.1, 1.0), r̄_src the mean r(τ) of the cited
 * trajectories (no data: 0.5). Ours: a re-cited entry's r̄ is the running mean over all evidence so far, so a
 * weight no longer depends on one 3-episode batch. Partial skills (from failed runs) are capped at 0.5.
 */

export const NO_EVIDENCE: Evidence = { sumR: 0, count: 0 };

const PARTIAL_SKILL_CAP = 0.5;

export const weightOf = (evidence: Evidence, opts: { partial?: boolean; fallbackMeanR?: number } = {}): number => {
  const mean = evidence.count > 0 ? evidence.sumR / evidence.count : opts.fallbackMeanR;
  const w = mean === undefined ? 0.5 : Math.min(1, Math.max(0.1, (mean + 1) / 2));
  return opts.partial ? Math.min(PARTIAL_SKILL_CAP, w) : w;
};

/** Evidence after citing more trajectories with rewards `rs`. */
export const cite = (evidence: Evidence, rs: readonly number[]): Evidence => ({
  sumR: evidence.sumR + rs.reduce((a, r) => a + r, 0),
  count: evidence.count + rs.length,
});

/**
 * Ours (docs/spec/method.md §3): a mistake weighs by how many failed trajectories cited it, n / (n + 2) within
 * [0.1, 1] (1 → 0.33, 2 → 0.5, 4 → 0.67, 8 → 0.8), so top-N ranks the failures seen most often; among equal
 * counts the more recent generation ranks first (byWeight). A failure's r says nothing about the mistake.
 */
export const mistakeWeight = (evidence: Evidence): number => Math.min(1, Math.max(0.1, evidence.count / (evidence.count + 2)));
