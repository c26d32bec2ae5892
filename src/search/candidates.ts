import { z } from "zod";
import { InvariantError } from "../errors.ts";
import { SEARCH_METHODS, type SearchMethod } from "./config.ts";
import { CandidateOutcome, type Evaluation, type Evaluator, type SearchInstance } from "./evaluator.ts";
import { OPERATORS, type CandidateView } from "./proposer.ts";
import type { CodeCheck } from "./redebug.ts";

/**
 * The candidates of a search and its exact budget (reward-search.md). Every candidate — operator, parent,
 * code, thought, fitness, feedback — is one line of `<dir>/candidates.jsonl`, appended when its evaluation has
 * ended, so the lineage can be drawn and a search killed at any moment resumes without evaluating a finished
 * candidate again.
 *
 * The budget counts candidates evaluated: a search of budget N sends exactly N evaluations to the evaluator
 * (a cache hit of the evaluator is one of them: the same candidate, evaluated at no cost), and ends with
 * exactly N lines. A resumed search reads the lines back, replays them instead of evaluating, and evaluates
 * only the rest. A candidate whose evaluation finished but whose line was not written before a kill is
 * evaluated again on resume (a caching evaluator answers it at no cost).
 */

export const CANDIDATE_SCHEMA_VERSION = 1;
const int0 = z.number().int().min(0);

export const CandidateRecord = z.object({
  schemaVersion: z.literal(CANDIDATE_SCHEMA_VERSION),
  index: int0,
  strategy: z.enum(SEARCH_METHODS),
  /** Eureka: the iteration; RF-Agent: the expansion (0 = the root's first children). */
  iteration: int0,
  operator: z.enum(OPERATORS),
  /** The candidate it improves (Eureka's kept best, RF-Agent's tree parent); null for a first design. */
  parent: int0.nullable(),
  /** Other candidates it read: crossover elites, path ancestors, the other branch's node. */
  related: z.array(int0),
  /** The design thought (after thought alignment, when there was one). */
  thought: z.string(),
  /** The thought as first written, when alignment re-wrote it. */
  draftThought: z.string().optional(),
  code: z.string(),
  design: z.record(z.string(), z.number()).optional(),
  /** Why the proposal is not what was asked (an unusable model answer), when it is not. */
  note: z.string().optional(),
  /** RF-Agent's re-debug: the codes the check refused before this one, in order, each with its error (no evaluation spent). */
  repairs: z.array(z.object({ code: z.string(), error: z.string() })).optional(),
  /** RF-Agent's self-evaluation of the node's code, in [−1, 1]. */
  vSelf: z.number().min(-1).max(1).optional(),
  vSelfNote: z.string().optional(),
  trainSeed: int0,
  evalSeeds: z.array(int0),
  outcome: CandidateOutcome,
  /** What the proposer is shown next: the reward reflection of the training, or its error. */
  feedback: z.string(),
});
export type CandidateRecord = z.infer<typeof CandidateRecord>;

/** What a search is, written beside the candidates; a resume with other settings is refused. */
export const SearchHeader = z.object({
  schemaVersion: z.literal(CANDIDATE_SCHEMA_VERSION),
  strategy: z.enum(SEARCH_METHODS),
  task: z.string(),
  seed: int0,
  budget: z.number().int().min(1),
  trainSteps: z.number().int().min(1),
  proposer: z.string(),
  options: z.record(z.string(), z.unknown()),
});
export type SearchHeader = z.infer<typeof SearchHeader>;

/** Where the candidates go: candidates.jsonl in a search directory (search-dir.ts), or memory in tests. */
export interface CandidateLog {
  read(): CandidateRecord[];
  append(r: CandidateRecord): void;
}

export const memoryLog = (initial: CandidateRecord[] = []): CandidateLog & { records: CandidateRecord[] } => {
  const records = [...initial];
  return { records, read: () => [...records], append: (r) => void records.push(r) };
};

export const viewOf = (r: CandidateRecord): CandidateView => ({
  index: r.index,
  thought: r.thought,
  code: r.code,
  ...(r.design ? { design: r.design } : {}),
  fitness: r.outcome.kind === "result" ? r.outcome.fitness : null,
  feedback: r.feedback,
});

export const fitnessOf = (r: CandidateRecord): number | null => (r.outcome.kind === "result" ? r.outcome.fitness : null);

/** The best candidate by final-policy F (the first on a tie); undefined when none trained successfully. */
export const bestOf = (rs: readonly CandidateRecord[]): CandidateRecord | undefined => {
  let best: CandidateRecord | undefined;
  for (const r of rs) if (fitnessOf(r) !== null && (!best || fitnessOf(r)! > fitnessOf(best)!)) best = r;
  return best;
};

export interface SearchPorts<T, I> {
  evaluator: Evaluator<T, I>;
  /** A cheap check of a proposal's code before its evaluation, for the re-debug loop (redebug.ts). */
  check?: CodeCheck<T, I>;
  log: CandidateLog;
  /** Each candidate as its line is written (progress output). */
  onCandidate?: (r: CandidateRecord, replayed: boolean) => void;
}

/**
 * The budget keeper: replays finished candidates from the log and evaluates the others, never more than
 * `budget` in all and each index at most once. `evaluations` counts the evaluations sent by this process.
 */
export const createBudget = <T, I extends SearchInstance>(o: { task: T; instance: I; budget: number; method: SearchMethod; ports: SearchPorts<T, I> }) => {
  const { instance } = o;
  if (instance.evalSeeds.includes(instance.trainSeed)) {
    throw new InvariantError(
      `search: the instance's evaluation seeds [${instance.evalSeeds.join(", ")}] include the training seed ${instance.trainSeed}; the family's instance must keep them disjoint`,
    );
  }
  const done = new Map<number, CandidateRecord>();
  for (const r of o.ports.log.read()) {
    if (r.strategy !== o.method) throw new InvariantError(`candidate ${r.index} of the log is from ${r.strategy}, not ${o.method}`);
    if (r.index >= o.budget) throw new InvariantError(`candidate ${r.index} of the log is beyond the budget of ${o.budget}`);
    if (!done.has(r.index)) done.set(r.index, r);
  }
  const replayedCount = done.size;
  const claimed = new Set<number>();
  let evaluations = 0;
  return {
    budget: o.budget,
    /** Candidates finished so far (replayed and new). */
    get used() {
      return done.size;
    },
    /** Candidates read back from the log at the start. */
    replayedCount,
    /** Evaluations this process sent to the evaluator (cache hits included). */
    get evaluations() {
      return evaluations;
    },
    /** The log's candidate at `index`, if it has one, looked up without replaying it. */
    logged(index: number): CandidateRecord | undefined {
      return done.get(index);
    },
    /** The finished candidate at `index`, if the log had it (the caller then skips proposing and evaluating it). */
    replayed(index: number): CandidateRecord | undefined {
      const r = done.get(index);
      if (r) o.ports.onCandidate?.(r, true);
      return r;
    },
    /** Evaluates candidate `index` on its own code: the request carries this code and nothing else. */
    async evaluate(index: number, code: string): Promise<Evaluation> {
      if (index >= o.budget || claimed.has(index) || done.has(index)) {
        throw new InvariantError(`candidate ${index}: an evaluation beyond the budget of ${o.budget} or a second evaluation of one candidate`);
      }
      claimed.add(index);
      evaluations++;
      return o.ports.evaluator.evaluate({ task: o.task, instance, code, method: o.method, index });
    },
    commit(r: CandidateRecord): CandidateRecord {
      const parsed = CandidateRecord.parse(r);
      o.ports.log.append(parsed);
      done.set(parsed.index, parsed);
      o.ports.onCandidate?.(parsed, false);
      return parsed;
    },
  };
};
export type Budget = ReturnType<typeof createBudget>;

/** A search's outcome: every candidate, the best by fitness, and what the budget did. */
export interface SearchResult {
  strategy: SearchMethod;
  candidates: CandidateRecord[];
  best: CandidateRecord | undefined;
  budget: number;
  /** Candidates read back from the log (a resume). */
  replayed: number;
  /** Evaluations this process sent. */
  evaluations: number;
}
