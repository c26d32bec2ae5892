import { z } from "zod";
import { P2pConfig, p2pHeaderOptions } from "./p2p-config.ts";
import { ETA, LAMBDA_END, LAMBDA_START } from "./tree.ts";

/**
 * The `search:` slice of a run config and of `hexa search` (its flags are derived from this schema, flags.ts):
 * the knobs of the search methods, Eureka, RF-Agent and p2p (reward-search.md), and the candidate budget. A run's
 * top-level `method` picks one of them, or the round loop (`rounds`), which reads only `budget`.
 */

export const SEARCH_METHODS = ["eureka", "rf-agent", "p2p"] as const;
export type SearchMethod = (typeof SEARCH_METHODS)[number];

/** RF-Agent's re-debug replacements per candidate (its reference code: 9 tries in all). */
const DEBUG_TRIES = 3;

/** Candidates of a search when neither search.budget nor eureka.iterations says (reward-search.md: 16 per task here, 80 on IsaacGym). */
const DEFAULT_BUDGET = 16;

export const EurekaConfig = z.strictObject({
  samples: z.number().int().min(1).default(4).describe("K: candidates sampled and evaluated per iteration"),
  iterations: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe("I: iterations when search.budget is unset (the budget is then K × I); unset: the budget alone sets them"),
});
export type EurekaConfig = z.infer<typeof EurekaConfig>;

export const RfAgentConfig = z.strictObject({
  initial: z.number().int().min(1).default(4).describe("first designs, the root's children"),
  children: z.number().int().min(1).default(8).describe("children of one expansion (8: shares 2, 2, 2, 1, 1 of the five operators)"),
  lambdaStart: z.number().min(0).default(LAMBDA_START).describe("λ, the UCT exploration weight, at the first selection"),
  lambdaEnd: z.number().min(0).default(LAMBDA_END).describe("λ when the budget is spent (linear between)"),
  eta: z.number().min(0).max(1).default(ETA).describe("η of the backup Q ← (1 − η) Q + η · max child Q"),
  sharedInitial: z
    .boolean()
    .default(false)
    .describe("draw the first designs from eureka's random streams, so both methods start alike (an ablation); unset: independent"),
  debugTries: z
    .number()
    .int()
    .min(0)
    .default(DEBUG_TRIES)
    .describe(
      "re-debug: replacements asked of the model for a code that fails its check (compile, run on sampled inputs) before its training, each a fix, every third refusal in a row a fresh proposal; model calls, not trainings",
    ),
});
export type RfAgentConfig = z.infer<typeof RfAgentConfig>;

export const SearchConfig = z
  .strictObject({
    budget: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe(
        `candidates evaluated per task (p2p: trainings, a multiple of --train-seeds): exact for eureka, rf-agent and p2p (unset: K × I when eureka.iterations is set, else ${DEFAULT_BUDGET}); method rounds: the run's trainings of the task, shared over its episodes; set: every method ends with final scores`,
      ),
    eureka: EurekaConfig.prefault({}).describe("eureka's knobs"),
    rfAgent: RfAgentConfig.prefault({}).describe("rf-agent's knobs"),
    p2p: P2pConfig.prefault({}).describe("p2p's knobs"),
  })
  .superRefine((c, ctx) => {
    const i = c.eureka.iterations;
    if (i !== undefined && c.budget !== undefined && c.budget !== c.eureka.samples * i) {
      ctx.addIssue({
        code: "custom",
        path: ["eureka", "iterations"],
        message: `K × I = ${c.eureka.samples * i} differs from search.budget ${c.budget}; set one of them`,
      });
    }
  });
export type SearchConfig = z.infer<typeof SearchConfig>;

/** The candidates a search of `method` evaluates (exactly). */
export const searchBudget = (method: SearchMethod, c: SearchConfig): number =>
  c.budget ?? (method === "eureka" && c.eureka.iterations !== undefined ? c.eureka.samples * c.eureka.iterations : DEFAULT_BUDGET);

/**
 * A note when RF-Agent's budget ends with the root's first designs, so that no node is ever expanded: the run is
 * then a plain sample of `initial` designs, not a tree search (docs/spec/reward-search.md).
 */
export const noTreeNote = (method: SearchMethod, c: SearchConfig, budget: number): string | undefined => {
  const { initial, children } = c.rfAgent;
  if (method !== "rf-agent" || budget > initial) return undefined;
  return `note: RF-Agent builds no tree: its budget of ${budget} candidate${budget === 1 ? "" : "s"} (search.budget, --budget) is spent on the root's first designs (search.rfAgent.initial ${initial}, --initial), so no design is expanded; give a budget above ${initial}, e.g. ${initial + children} (${initial} first designs and one expansion of ${children}), or a smaller initial`;
};

/**
 * The knobs search.json records for a method (a resume with others is refused). λ, η, debugTries and sharedInitial are written
 * only when they differ from their defaults: searches made before they were knobs recorded `initial` and
 * `children` alone, and resume with the defaults.
 */
export const headerOptions = (method: SearchMethod, c: SearchConfig): Record<string, number> => {
  if (method === "eureka") return { samples: c.eureka.samples };
  if (method === "p2p") return p2pHeaderOptions(c.p2p);
  const r = c.rfAgent;
  return {
    initial: r.initial,
    children: r.children,
    ...(r.lambdaStart !== LAMBDA_START ? { lambdaStart: r.lambdaStart } : {}),
    ...(r.lambdaEnd !== LAMBDA_END ? { lambdaEnd: r.lambdaEnd } : {}),
    ...(r.eta !== ETA ? { eta: r.eta } : {}),
    ...(r.debugTries !== DEBUG_TRIES ? { debugTries: r.debugTries } : {}),
    ...(r.sharedInitial ? { sharedInitial: 1 } : {}),
  };
};
