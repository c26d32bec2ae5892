import type { Rng } from "../../../src/util/rng.ts";
import type { Design } from "../heuristic/terms.ts";
import type { RewardTask, TaskInstance } from "../task.ts";

/**
 * The proposer port of the search strategies (docs/spec/reward-search.md §8): what writes the next reward candidate. Two
 * implementations: the LLM proposer (llm-proposer.ts, any OpenAI-compatible model) and the heuristic proposer
 * (heuristic-proposer.ts, no LLM, labelled). A strategy decides *which* operator and *which* context; the
 * proposer only writes a design thought first, then the code.
 */

/**
 * The operators: `initial` (a first design from the task alone), `refine` (Eureka: improve the iteration's best
 * with its reward reflection), and RF-Agent's five expansion operators.
 */
export const OPERATORS = ["initial", "refine", "structural", "parameter", "crossover", "path", "different"] as const;
export type Operator = (typeof OPERATORS)[number];

/** RF-Agent's five expansion operators, in the order of their shares [2, 2, 2, 1, 1]. */
export const EXPANSION_OPERATORS = ["structural", "parameter", "crossover", "path", "different"] as const satisfies readonly Operator[];
export type ExpansionOperator = (typeof EXPANSION_OPERATORS)[number];

/** A trained candidate as a proposer sees it. */
export interface CandidateView {
  index: number;
  thought: string;
  code: string;
  /** The heuristic design behind the code, when a heuristic proposer wrote it. */
  design?: Design;
  /** Final-policy F; null when the training failed. */
  fitness: number | null;
  /** The reward reflection of its training, or its error. */
  feedback: string;
}

export interface ProposeContext {
  task: RewardTask;
  instance: TaskInstance;
  /** The candidate's index in the search (the strategies set it; a model's usage lines name it). */
  index?: number;
  /** The candidate being improved: Eureka's best so far, RF-Agent's selected node (absent for `initial`). */
  parent?: CandidateView;
  /** Crossover: the elites to mix with the parent (2–4 in all, the parent included). */
  elites?: readonly CandidateView[];
  /** Path reasoning: the parent's ancestors, nearest first, at most 4 (the parent included). */
  ancestors?: readonly CandidateView[];
  /** Different thought: a node from another branch of the tree. */
  other?: CandidateView;
  /** Eureka: the feedback turn (the kept best's reflection), replacing the previous one. */
  feedback?: string;
  /** Codes already tried in this search (a proposer may avoid repeating one). */
  seen: ReadonlySet<string>;
  /** This candidate's own random stream (seeded by the search seed and the candidate's index, so a resume replays it). */
  rng: Rng;
}

export interface Proposal {
  thought: string;
  code: string;
  design?: Design;
  /** Why the proposal is not what the model was asked for (e.g. an unusable answer), when it is not. */
  note?: string;
}

export interface SelfEvaluation {
  /** In [−1, 1]: how closely the reward matches how an expert policy would move. */
  value: number;
  /** Set when the evaluator's answer was unusable and `value` is the fallback. */
  note?: string;
}

export interface Proposer {
  /** Shown in outputs: e.g. "heuristic (no LLM)" or the model's name. */
  readonly label: string;
  propose(kind: Operator, ctx: ProposeContext): Promise<Proposal>;
  /** RF-Agent's v_self, from the node's own code. */
  selfEvaluate?(code: string, ctx: Pick<ProposeContext, "task" | "instance" | "rng" | "index">): Promise<SelfEvaluation>;
  /** Thought alignment after a successful training: the thought re-written from the code, ≤ 4 sentences. */
  align?(code: string, thought: string, ctx: Pick<ProposeContext, "task" | "instance" | "rng" | "index"> & { design?: Design }): Promise<string>;
}

/** The neutral self-evaluation used when an evaluator's answer is unusable. */
export const SELF_EVAL_FALLBACK = 0;

/** At most `n` sentences of a text (thought alignment keeps ≤ 4). */
export const firstSentences = (text: string, n = 4): string =>
  text
    .trim()
    .split(/(?<=[.!?])\s+/)
    .filter(Boolean)
    .slice(0, n)
    .join(" ");
