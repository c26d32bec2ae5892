import type { Lesson } from "../store/lesson.ts";
import type { Rng } from "../util/rng.ts";

/**
 * The proposer port of the search methods (Eureka, RF-Agent): what writes the next candidate's code. A family
 * supplies it (reward search: an LLM proposer and a heuristic one, levels/reward-search/proposers/). A method
 * decides *which* operator and *which* context; the proposer only writes a design thought first, then the
 * code. `T` is the family's task and `I` its task instance: opaque here, passed through to the proposer.
 */

/** A proposer's own parametrisation of a code (e.g. a heuristic's term weights), kept with the candidate for it. */
type Design = Record<string, number>;

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
  /** The design behind the code, when the proposer gave one. */
  design?: Design;
  /** Final-policy F; null when the training failed. */
  fitness: number | null;
  /** The reward reflection of its training, or its error. */
  feedback: string;
}

export interface ProposeContext<T, I> {
  task: T;
  instance: I;
  /** The candidate's index in the search (the strategies set it; a model's usage lines name it). */
  index?: number;
  /** The candidate being improved: Eureka's best so far, RF-Agent's selected node (absent for `initial`). */
  parent?: CandidateView;
  /** Crossover: the elites to mix with the parent (2–4 in all, the parent included). */
  elites?: readonly CandidateView[];
  /** Path reasoning: the parent's ancestors, nearest first, at most 4 (the parent included). */
  ancestors?: readonly CandidateView[];
  /** Different thought: 1–3 nodes from other branches of the tree, to write a reward of a totally different form from. */
  others?: readonly CandidateView[];
  /** Eureka: the feedback turn (the kept best's reflection), replacing the previous one. */
  feedback?: string;
  /** Lessons carried from earlier iterations or tasks, shown by tier (docs/spec/method.md §3.1); absent or empty: none shown. */
  lessons?: readonly Lesson[];
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

/** A proposal's code that failed the search's check (compile or run on sampled inputs), with the check's error. */
export interface FailedAttempt {
  thought: string;
  code: string;
  error: string;
}

/** What a self-evaluation or a thought alignment is told: the candidate's task, instance, index and random stream. */
type NodeContext<T, I> = Pick<ProposeContext<T, I>, "task" | "instance" | "rng" | "index">;

export interface Proposer<T, I> {
  /** Shown in outputs: e.g. "heuristic (no LLM)" or the model's name. */
  readonly label: string;
  propose(kind: Operator, ctx: ProposeContext<T, I>): Promise<Proposal>;
  /** RF-Agent's v_self, from the node's own design thought and code. */
  selfEvaluate?(node: { thought: string; code: string }, ctx: NodeContext<T, I>): Promise<SelfEvaluation>;
  /** RF-Agent's re-debug: a fix of a proposal whose code failed the check, written from its error. */
  repair?(kind: Operator, ctx: ProposeContext<T, I>, failed: FailedAttempt): Promise<Proposal>;
  /** Thought alignment after a successful evaluation: the thought re-written from the code, ≤ 4 sentences. */
  align?(code: string, thought: string, ctx: NodeContext<T, I> & { design?: Design }): Promise<string>;
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
