import { z } from "zod";
import type { SearchMethod } from "./config.ts";

/**
 * The evaluator port of the search methods: what turns a candidate's code into a fitness on a task instance.
 * A family supplies it (reward search: PPO trainings on the trainer pool, levels/reward-search/search/
 * evaluator.ts). An evaluation that fails (bad code, a crash) is an outcome with its error, never a throw: the
 * error is the feedback the proposer sees next, and the candidate counts against the budget.
 */

const int0 = z.number().int().min(0);

/** What an instance must say for a search to record it honestly: the seeds its evaluations use. */
export interface SearchInstance {
  /** The seed an evaluation trains (or runs) with. */
  readonly trainSeed: number;
  /** The seeds an evaluation is scored on (its selection seeds in a search); never the training seed (reward-search.md: a flaw of the reference code). */
  readonly evalSeeds: readonly number[];
}

export const CandidateOutcome = z.discriminatedUnion("kind", [
  z.object({
    kind: z.literal("result"),
    /** The reported score: the final fitness, mean over the evaluation seeds. */
    fitness: z.number(),
    perSeed: z.array(z.object({ seed: int0, fitness: z.number() })),
    /** The best fitness during the evaluation's run, labelled as such: never the score. */
    bestCheckpoint: z.object({ fitness: z.number(), step: int0 }),
    steps: int0,
    /** Answered from the evaluator's cache (still one candidate of the budget). */
    cached: z.boolean(),
  }),
  z.object({ kind: z.literal("error"), error: z.string(), message: z.string() }),
]);
export type CandidateOutcome = z.infer<typeof CandidateOutcome>;

export interface Evaluation {
  outcome: CandidateOutcome;
  /** What the proposer is shown next: the evaluation's reflection, or its error. */
  feedback: string;
}

export interface EvaluateRequest<T, I> {
  task: T;
  instance: I;
  /** The candidate's own code: the evaluation carries this code and nothing else. */
  code: string;
  method: SearchMethod;
  /** The candidate's index in the search (e.g. in the evaluator's job labels). */
  index: number;
}

export interface Evaluator<T, I> {
  evaluate(req: EvaluateRequest<T, I>): Promise<Evaluation>;
}
