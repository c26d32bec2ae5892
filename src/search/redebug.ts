import type { Operator, Proposal, ProposeContext, Proposer } from "./proposer.ts";

/**
 * The check port and RF-Agent's re-debug loop (docs/spec/reward-search.md §8.4). A family may supply a check:
 * a cheap test of a code without an evaluation (reward search: compile it in the sandbox and run it on sampled
 * transitions), answering null when it passes, else the error as the proposer should read it. A proposal that
 * fails goes back to the proposer's `repair` with its error, up to `tries` times; only the code that comes out
 * is evaluated, so the fixes cost proposer calls (a model's budget), never an evaluation (the training budget).
 */

export type CodeCheck<T, I> = (req: { task: T; instance: I; code: string }) => Promise<string | null>;

/** Failed checks in a row after which the reference code drops the fixes and asks the operator's prompt afresh. */
const RESTART_AFTER = 3;

/** A code the check refused, replaced by the proposer's fix. */
export interface Repair {
  code: string;
  error: string;
}

/**
 * The proposal of `kind`, checked and fixed: the first code, then each fix while the check refuses it, `tries`
 * replacements at most; as in RF-Agent's reference code, every RESTART_AFTER-th refusal in a row asks the
 * operator's prompt afresh instead of a fix (a design that keeps failing is dropped). The last replacement is not
 * checked again: its evaluation reports what is still wrong. Without a check, a proposer that cannot repair, or
 * `tries` = 0, the proposal as written.
 */
export const proposeChecked = async <T, I>(
  proposer: Proposer<T, I>,
  kind: Operator,
  ctx: ProposeContext<T, I>,
  check: CodeCheck<T, I> | undefined,
  tries: number,
): Promise<{ proposal: Proposal; repairs: Repair[] }> => {
  let proposal = await proposer.propose(kind, ctx);
  const repairs: Repair[] = [];
  if (!check || !proposer.repair) return { proposal, repairs };
  while (repairs.length < tries) {
    const error = await check({ task: ctx.task, instance: ctx.instance, code: proposal.code });
    if (error === null) break;
    repairs.push({ code: proposal.code, error });
    proposal =
      repairs.length % RESTART_AFTER === 0
        ? await proposer.propose(kind, ctx)
        : await proposer.repair(kind, ctx, { thought: proposal.thought, code: proposal.code, error });
  }
  return { proposal, repairs };
};
