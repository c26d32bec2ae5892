import { z } from "zod";

/**
 * The knobs of the p2p strategy (docs/spec/reward-search.md §8.6): per iteration one reward trained with
 * `configs` hyper-parameter configurations on `trainSeeds` seeds each, until the judged score passes, the
 * iterations run out or the training budget (search.budget) is spent.
 */

/** Iterations without a new best after which the reviser must rewrite the reward's structure (Prompt-to-Policy's rule). */
const PLATEAU_ITERATIONS = 3;

export const P2pConfig = z.strictObject({
  configs: z.number().int().min(1).max(8).default(3).describe("hyper-parameter configurations trained per iteration (the revised one and its variants)"),
  trainSeeds: z.number().int().min(1).max(8).default(2).describe("training seeds per configuration; a configuration is ranked by its mean over them"),
  maxIterations: z.number().int().min(1).max(200).default(20).describe("iterations at most"),
  plateau: z.number().int().min(1).default(PLATEAU_ITERATIONS).describe("iterations without a new best after which the reviser must make a structural change"),
  passThreshold: z
    .number()
    .min(0)
    .max(1)
    .optional()
    .describe("judged score (0–1) at which the search stops; unset: the judge's own (the fitness judge: the task's solved threshold)"),
});
export type P2pConfig = z.infer<typeof P2pConfig>;

/** The knobs search.json records for p2p (a resume with others is refused). */
export const p2pHeaderOptions = (c: P2pConfig): Record<string, number> => ({
  configs: c.configs,
  trainSeeds: c.trainSeeds,
  maxIterations: c.maxIterations,
  plateau: c.plateau,
  ...(c.passThreshold !== undefined ? { passThreshold: c.passThreshold } : {}),
});
