import { InvariantError } from "../errors.ts";
import { createRng, type Rng } from "../util/rng.ts";
import { CANDIDATE_SCHEMA_VERSION, type Budget, type CandidateRecord } from "./candidates.ts";
import type { SearchMethod } from "./config.ts";
import type { SearchInstance } from "./evaluator.ts";
import { firstSentences, type Proposal, type ProposeContext, type Proposer, type SelfEvaluation } from "./proposer.ts";
import { proposeChecked, type CodeCheck, type Repair } from "./redebug.ts";

/** Promise.all that waits for every promise before it throws the first rejection (no candidate is left in flight). */
export const settleAll = async <T>(ps: readonly Promise<T>[]): Promise<T[]> => {
  const all = await Promise.allSettled(ps);
  const failed = all.find((r): r is PromiseRejectedResult => r.status === "rejected");
  if (failed) throw failed.reason;
  return all.map((r) => (r as PromiseFulfilledResult<T>).value);
};

/** One candidate a method has decided on: where it sits and what the proposer is told. */
export interface Planned<T, I> {
  index: number;
  iteration: number;
  operator: CandidateRecord["operator"];
  parent: number | null;
  related: number[];
  ctx: ProposeContext<T, I>;
}

/** A candidate's own random stream: a function of the search seed and its index only, so a resume replays it. */
export const candidateRng = (seed: number, index: number): Rng => createRng(seed * 1_000_003 + index + 1);

/**
 * Proposes, self-evaluates, evaluates and records a batch of candidates. Proposals are made one after another
 * (each sees the codes proposed before it; with `redebug`, each checked and fixed first, redebug.ts), then
 * every candidate is evaluated concurrently on its own code,
 * then successful ones get thought alignment, and each is committed as its evaluation ends. Replayed
 * candidates are taken from the log as they are. A candidate that fails (a spend cap refusing its alignment)
 * does not stop the others: every evaluation in flight ends and is committed first, then the first error is thrown.
 */
export const runBatch = async <T, I extends SearchInstance>(
  b: Budget,
  proposer: Proposer<T, I>,
  method: SearchMethod,
  planned: readonly Planned<T, I>[],
  seen: Set<string>,
  opts: { selfEvaluate: boolean; align: boolean; redebug?: { check: CodeCheck<T, I> | undefined; tries: number } },
): Promise<CandidateRecord[]> => {
  const drafts: Array<{ p: Planned<T, I>; replayed?: CandidateRecord; proposal?: Proposal; repairs?: Repair[]; vSelf?: SelfEvaluation }> = [];
  // A proposer that fails (the spend cap refusing a call) ends the proposals; those already made are evaluated first.
  let stop: { error: unknown } | undefined;
  for (const p of planned) {
    const replayed = b.replayed(p.index);
    if (replayed) {
      if (replayed.operator !== p.operator || replayed.parent !== p.parent) {
        throw new InvariantError(
          `candidate ${p.index}: the log has ${replayed.operator} of ${replayed.parent}, the search replays ${p.operator} of ${p.parent}; the log belongs to another search`,
        );
      }
      seen.add(replayed.code);
      drafts.push({ p, replayed });
      continue;
    }
    try {
      const { proposal, repairs } = await proposeChecked(proposer, p.operator, p.ctx, opts.redebug?.check, opts.redebug?.tries ?? 0);
      seen.add(proposal.code);
      // The self-evaluation reads this node's own thought and code (RF-Agent's reference code scored "None").
      const vSelf =
        opts.selfEvaluate && proposer.selfEvaluate ? await proposer.selfEvaluate({ thought: proposal.thought, code: proposal.code }, p.ctx) : undefined;
      drafts.push({ p, proposal, repairs, ...(vSelf ? { vSelf } : {}) });
    } catch (error) {
      stop = { error };
      break;
    }
  }
  const out = settleAll(
    drafts.map(async ({ p, replayed, proposal, repairs, vSelf }) => {
      if (replayed) return replayed;
      const { outcome, feedback } = await b.evaluate(p.index, proposal!.code);
      let thought = proposal!.thought;
      let draftThought: string | undefined;
      if (opts.align && outcome.kind === "result" && proposer.align) {
        draftThought = thought;
        thought =
          firstSentences(await proposer.align(proposal!.code, thought, { ...p.ctx, ...(proposal!.design ? { design: proposal!.design } : {}) }), 4) || thought;
      }
      return b.commit({
        schemaVersion: CANDIDATE_SCHEMA_VERSION,
        index: p.index,
        strategy: method,
        iteration: p.iteration,
        operator: p.operator,
        parent: p.parent,
        related: p.related,
        thought,
        ...(draftThought !== undefined ? { draftThought } : {}),
        code: proposal!.code,
        ...(proposal!.design ? { design: proposal!.design } : {}),
        ...(proposal!.note ? { note: proposal!.note } : {}),
        ...(repairs?.length ? { repairs } : {}),
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
