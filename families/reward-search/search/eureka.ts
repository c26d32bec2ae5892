import { z } from "zod";
import type { RewardTask, TaskInstance } from "../task.ts";
import { bestOf, candidateRng, createBudget, runBatch, viewOf, type CandidateRecord, type Planned, type SearchPorts, type SearchResult } from "./candidates.ts";
import type { Proposer } from "./proposer.ts";

/**
 * Eureka's greedy evolution (docs/spec/reward-search.md §8.3): per iteration K candidates are sampled from the proposer and
 * each is trained; the iteration's best (by final-policy F) is kept and its reward reflection becomes the
 * feedback of the next iteration, replacing the previous feedback; I iterations, K × I candidates in all.
 * An iteration whose candidates all failed keeps the previous best and feeds back the first failure's error.
 */
export const EurekaConfig = z.strictObject({
  samples: z.number().int().min(1).default(4).describe("K: candidates sampled and trained per iteration"),
  iterations: z.number().int().min(1).default(4).describe("I: iterations; the budget is K × I unless given"),
});
export type EurekaConfig = z.infer<typeof EurekaConfig>;

export interface StrategyRun {
  task: RewardTask;
  instance: TaskInstance;
  /** Env steps of every candidate's training. */
  steps: number;
  /** The search's own seed (its random streams; never a training or evaluation seed). */
  seed: number;
  proposer: Proposer;
  ports: SearchPorts;
  /** Candidates in all; unset: the strategy's default. */
  budget?: number;
}

export const runEureka = async (run: StrategyRun, config: Partial<EurekaConfig> = {}): Promise<SearchResult> => {
  const c = EurekaConfig.parse(config);
  const budget = run.budget ?? c.samples * c.iterations;
  const b = createBudget({ task: run.task, instance: run.instance, steps: run.steps, budget, strategy: "eureka", ports: run.ports });
  const all: CandidateRecord[] = [];
  const seen = new Set<string>();
  let kept: CandidateRecord | undefined;
  let feedback: string | undefined;
  for (let it = 0; it * c.samples < budget; it++) {
    const n = Math.min(c.samples, budget - it * c.samples);
    const planned: Planned[] = Array.from({ length: n }, (_, j) => {
      const index = it * c.samples + j;
      return {
        index,
        iteration: it,
        operator: kept ? "refine" : "initial",
        parent: kept?.index ?? null,
        related: [],
        ctx: {
          task: run.task,
          instance: run.instance,
          index,
          ...(kept ? { parent: viewOf(kept) } : {}),
          ...(feedback !== undefined ? { feedback } : {}),
          seen,
          rng: candidateRng(run.seed, index),
        },
      };
    });
    const got = await runBatch(b, run.proposer, "eureka", planned, seen, { selfEvaluate: false, align: false });
    all.push(...got);
    const iterBest = bestOf(got);
    if (iterBest) {
      kept = iterBest;
      feedback = iterBest.feedback;
    } else if (got.length) {
      feedback = `Every candidate of iteration ${it + 1} failed; the first one's error:\n${got[0]!.feedback}`;
    }
  }
  return { strategy: "eureka", candidates: all, best: bestOf(all), budget, replayed: b.replayedCount, trainings: b.trainings };
};
