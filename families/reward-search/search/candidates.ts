import { z } from "zod";
import { InvariantError } from "../../../src/errors.ts";
import type { PoolOutcome, TrainerPool } from "../trainer/pool.ts";
import { reflection, trainingError } from "../tools/feedback.ts";
import type { RewardTask, TaskInstance } from "../task.ts";
import { createRng, type Rng } from "../../../src/util/rng.ts";
import { firstSentences, OPERATORS, type CandidateView, type Proposal, type ProposeContext, type Proposer, type SelfEvaluation } from "./proposer.ts";

/**
 * The candidates of a search and its exact budget (docs/spec/reward-search.md §8.2). Every candidate — operator, parent, code,
 * thought, F, feedback — is one line of `<dir>/candidates.jsonl`, appended when its training has ended, so the
 * lineage can be drawn and a search killed at any moment resumes without retraining a finished candidate.
 *
 * The budget counts candidates evaluated: a search of budget N sends exactly N trainings to the trainer pool
 * (a pool cache hit is one of them: the same candidate, evaluated at no cost), and ends with exactly N lines.
 * A resumed search reads the lines back, replays them instead of training, and trains only the rest. A
 * candidate whose training finished but whose line was not written before a kill is trained again on resume;
 * the trainer cache answers it without a trainer process (the pool's `sent` does not grow).
 */

export const CANDIDATE_SCHEMA_VERSION = 1;
const int0 = z.number().int().min(0);

export const CandidateOutcome = z.discriminatedUnion("kind", [
  z.object({
    kind: z.literal("result"),
    /** The reported score: the final policy's F, mean over the held-out evaluation seeds. */
    fitness: z.number(),
    perSeed: z.array(z.object({ seed: int0, fitness: z.number() })),
    /** The best F during training, labelled as such: never the score. */
    bestCheckpoint: z.object({ fitness: z.number(), step: int0 }),
    steps: int0,
    cached: z.boolean(),
  }),
  z.object({ kind: z.literal("error"), error: z.string(), message: z.string() }),
]);
export type CandidateOutcome = z.infer<typeof CandidateOutcome>;

export const CandidateRecord = z.object({
  schemaVersion: z.literal(CANDIDATE_SCHEMA_VERSION),
  index: int0,
  strategy: z.enum(["eureka", "rf-agent"]),
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
  strategy: z.enum(["eureka", "rf-agent"]),
  task: z.string(),
  seed: int0,
  budget: z.number().int().min(1),
  trainSteps: z.number().int().min(1),
  proposer: z.string(),
  options: z.record(z.string(), z.unknown()),
});
export type SearchHeader = z.infer<typeof SearchHeader>;

/** Where the candidates go: candidates.jsonl in a run directory (src/cli/search.ts), or memory in tests. */
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

export interface SearchPorts {
  trainer: Pick<TrainerPool, "train">;
  log: CandidateLog;
  /** Each candidate as its line is written (progress output). */
  onCandidate?: (r: CandidateRecord, replayed: boolean) => void;
}

/**
 * The budget keeper: replays finished candidates from the log and trains the others, never more than `budget`
 * in all and each index at most once. `trainings` counts the trainings sent by this process.
 */
export const createBudget = (o: { task: RewardTask; instance: TaskInstance; steps: number; budget: number; strategy: CandidateRecord["strategy"]; ports: SearchPorts }) => {
  const { instance } = o;
  if (instance.evalSeeds.includes(instance.trainSeed)) {
    throw new InvariantError(`instance ${instance.task}/${instance.seed}: evaluation seeds [${instance.evalSeeds.join(", ")}] include the training seed ${instance.trainSeed}`);
  }
  const done = new Map<number, CandidateRecord>();
  for (const r of o.ports.log.read()) {
    if (r.strategy !== o.strategy) throw new InvariantError(`candidate ${r.index} of the log is from ${r.strategy}, not ${o.strategy}`);
    if (r.index >= o.budget) throw new InvariantError(`candidate ${r.index} of the log is beyond the budget of ${o.budget}`);
    if (!done.has(r.index)) done.set(r.index, r);
  }
  const replayedCount = done.size;
  const claimed = new Set<number>();
  let trainings = 0;
  return {
    budget: o.budget,
    /** Candidates finished so far (replayed and new). */
    get used() {
      return done.size;
    },
    /** Candidates read back from the log at the start. */
    replayedCount,
    /** Trainings this process sent to the trainer (cache hits included). */
    get trainings() {
      return trainings;
    },
    /** The finished candidate at `index`, if the log had it (the caller then skips proposing and training it). */
    replayed(index: number): CandidateRecord | undefined {
      const r = done.get(index);
      if (r) o.ports.onCandidate?.(r, true);
      return r;
    },
    /** Trains candidate `index` on its own code: the job carries this code and nothing else. */
    async train(index: number, code: string): Promise<{ outcome: CandidateOutcome; feedback: string }> {
      if (index >= o.budget || claimed.has(index) || done.has(index)) {
        throw new InvariantError(`candidate ${index}: a training beyond the budget of ${o.budget} or a second training of one candidate`);
      }
      claimed.add(index);
      trainings++;
      const out: PoolOutcome = await o.ports.trainer.train(
        { task: o.task.id, instance, reward: code, steps: o.steps, seed: instance.trainSeed, evalSeeds: instance.evalSeeds, ppo: o.task.training.ppo },
        { label: `${o.strategy}-${o.task.id}-s${instance.seed}-c${index}` },
      );
      if (out.kind === "error") return { outcome: { kind: "error", error: out.error.kind, message: out.error.message }, feedback: trainingError(out.error) };
      const r = out.result;
      return {
        outcome: { kind: "result", fitness: r.final.fitness, perSeed: r.final.perSeed, bestCheckpoint: r.bestCheckpoint, steps: r.steps, cached: out.cached },
        feedback: reflection(r, o.task.fitness.solved),
      };
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

/** A search's outcome: every candidate, the best by final-policy F, and what the budget did. */
export interface SearchResult {
  strategy: CandidateRecord["strategy"];
  candidates: CandidateRecord[];
  best: CandidateRecord | undefined;
  budget: number;
  /** Candidates read back from the log (a resume). */
  replayed: number;
  /** Trainings this process sent. */
  trainings: number;
}

/** Promise.all that waits for every promise before it throws the first rejection (no candidate is left in flight). */
export const settleAll = async <T>(ps: readonly Promise<T>[]): Promise<T[]> => {
  const all = await Promise.allSettled(ps);
  const failed = all.find((r): r is PromiseRejectedResult => r.status === "rejected");
  if (failed) throw failed.reason;
  return all.map((r) => (r as PromiseFulfilledResult<T>).value);
};

/** One candidate a strategy has decided on: where it sits and what the proposer is told. */
export interface Planned {
  index: number;
  iteration: number;
  operator: CandidateRecord["operator"];
  parent: number | null;
  related: number[];
  ctx: ProposeContext;
}

/** A candidate's own random stream: a function of the search seed and its index only, so a resume replays it. */
export const candidateRng = (seed: number, index: number): Rng => createRng(seed * 1_000_003 + index + 1);

/**
 * Proposes, self-evaluates, trains and records a batch of candidates. Proposals are made one after another
 * (each sees the codes proposed before it), then every candidate trains concurrently on its own code, then
 * successful ones get thought alignment, and each is committed as its training ends. Replayed candidates are
 * taken from the log as they are. A candidate that fails (a spend cap refusing its alignment) does not stop
 * the others: every training in flight ends and is committed first, then the first error is thrown.
 */
export const runBatch = async (
  b: Budget,
  proposer: Proposer,
  strategy: CandidateRecord["strategy"],
  planned: readonly Planned[],
  seen: Set<string>,
  opts: { selfEvaluate: boolean; align: boolean },
): Promise<CandidateRecord[]> => {
  const drafts: Array<{ p: Planned; replayed?: CandidateRecord; proposal?: Proposal; vSelf?: SelfEvaluation }> = [];
  // A proposer that fails (the spend cap refusing a call) ends the proposals; those already made are trained first.
  let stop: { error: unknown } | undefined;
  for (const p of planned) {
    const replayed = b.replayed(p.index);
    if (replayed) {
      if (replayed.operator !== p.operator || replayed.parent !== p.parent) {
        throw new InvariantError(`candidate ${p.index}: the log has ${replayed.operator} of ${replayed.parent}, the search replays ${p.operator} of ${p.parent}; the log belongs to another search`);
      }
      seen.add(replayed.code);
      drafts.push({ p, replayed });
      continue;
    }
    try {
      const proposal = await proposer.propose(p.operator, p.ctx);
      seen.add(proposal.code);
      // The self-evaluation reads this node's own code (RF-Agent's reference code scored "None").
      const vSelf = opts.selfEvaluate && proposer.selfEvaluate ? await proposer.selfEvaluate(proposal.code, p.ctx) : undefined;
      drafts.push({ p, proposal, ...(vSelf ? { vSelf } : {}) });
    } catch (error) {
      stop = { error };
      break;
    }
  }
  const out = settleAll(
    drafts.map(async ({ p, replayed, proposal, vSelf }) => {
      if (replayed) return replayed;
      const { outcome, feedback } = await b.train(p.index, proposal!.code);
      let thought = proposal!.thought;
      let draftThought: string | undefined;
      if (opts.align && outcome.kind === "result" && proposer.align) {
        draftThought = thought;
        thought = firstSentences(await proposer.align(proposal!.code, thought, { ...p.ctx, ...(proposal!.design ? { design: proposal!.design } : {}) }), 4) || thought;
      }
      return b.commit({
        schemaVersion: CANDIDATE_SCHEMA_VERSION,
        index: p.index,
        strategy,
        iteration: p.iteration,
        operator: p.operator,
        parent: p.parent,
        related: p.related,
        thought,
        ...(draftThought !== undefined ? { draftThought } : {}),
        code: proposal!.code,
        ...(proposal!.design ? { design: proposal!.design } : {}),
        ...(proposal!.note ? { note: proposal!.note } : {}),
        ...(vSelf ? { vSelf: vSelf.value, ...(vSelf.note ? { vSelfNote: vSelf.note } : {}) } : {}),
        trainSeed: p.ctx.instance.trainSeed,
        evalSeeds: [...p.ctx.instance.evalSeeds],
        outcome,
        feedback,
      });
    }),
  );
  if (!stop) return out;
  await out;
  throw stop.error;
};
