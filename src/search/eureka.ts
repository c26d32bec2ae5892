import { createBudget, bestOf, viewOf, type CandidateRecord, type SearchPorts, type SearchResult } from "./candidates.ts";
import { candidateRng, runBatch, type Planned } from "./batch.ts";
import type { EurekaConfig } from "./config.ts";
import type { SearchInstance } from "./evaluator.ts";
import type { Proposer } from "./proposer.ts";

/**
 * Eureka's greedy evolution (reward-search.md): per iteration K candidates are sampled from the proposer and
 * each is evaluated; the iteration's best (by fitness) is kept and its reflection becomes the feedback of the
 * next iteration, replacing the previous feedback; iterations until the budget is spent (K × I when it is a
 * multiple of K, the last iteration smaller otherwise). An iteration whose candidates all failed keeps the
 * previous best and feeds back the first failure's error.
 */

export interface StrategyRun<T, I extends SearchInstance> {
  task: T;
  instance: I;
  /** The search's own seed (its random streams; never an evaluation's training or evaluation seed). */
  seed: number;
  proposer: Proposer<T, I>;
  ports: SearchPorts<T, I>;
  /** Candidates in all, exactly (config.ts `searchBudget`). */
  budget: number;
}

export const runEureka = async <T, I extends SearchInstance>(run: StrategyRun<T, I>, c: Pick<EurekaConfig, "samples">): Promise<SearchResult> => {
  const { budget } = run;
  const b = createBudget({ task: run.task, instance: run.instance, budget, method: "eureka", ports: run.ports });
  const all: CandidateRecord[] = [];
  const seen = new Set<string>();
  let kept: CandidateRecord | undefined;
  let feedback: string | undefined;
  for (let it = 0; it * c.samples < budget; it++) {
    const n = Math.min(c.samples, budget - it * c.samples);
    const planned: Planned<T, I>[] = Array.from({ length: n }, (_, j) => {
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
  return { strategy: "eureka", candidates: all, best: bestOf(all), budget, replayed: b.replayedCount, evaluations: b.evaluations };
};
