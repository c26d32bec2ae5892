import { z } from "zod";
import type { JobProgress } from "./client-types.ts";

/**
 * What a training's PPO losses were as it ended (docs/spec/reward-search.md §6): each of CleanRL's losses/* that
 * the trainer reported, averaged over the last quarter of the updates that reported any. The pool keeps it with
 * the training's outcome and in its cache entry, so a training answered from the cache reports the same losses
 * as one trained now; the progress lines themselves are not kept.
 */

const finite = z.number().refine(Number.isFinite, "must be a finite number");
/** More updates than any training of hexa's budgets makes; a larger count is not a trainer's. */
const MAX_UPDATES = 1e9;

export const LossSummary = z.strictObject({
  /** The updates whose losses were averaged (the last quarter of those that reported any). */
  updates: z.number().int().min(1).max(MAX_UPDATES),
  policyLoss: finite.nullable(),
  valueLoss: finite.nullable(),
  entropy: finite.nullable(),
  approxKl: finite.nullable(),
  clipFrac: finite.nullable(),
  explainedVariance: finite.nullable(),
});
export type LossSummary = z.infer<typeof LossSummary>;

const LOSSES = ["policyLoss", "valueLoss", "entropy", "approxKl", "clipFrac", "explainedVariance"] as const;

/** The summary of these progress lines; null when none carried losses. */
export const summariseLosses = (progress: readonly Pick<JobProgress, "losses">[]): LossSummary | null => {
  const withLosses = progress.flatMap((p) => (p.losses ? [p.losses] : []));
  if (!withLosses.length) return null;
  const tail = withLosses.slice(Math.floor((withLosses.length * 3) / 4));
  const meanOf = (k: (typeof LOSSES)[number]) => {
    const xs = tail.map((l) => l[k]).filter((x): x is number => typeof x === "number");
    return xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : null;
  };
  return { updates: tail.length, ...Object.fromEntries(LOSSES.map((k) => [k, meanOf(k)])) } as LossSummary;
};
