import { z } from "zod";
import { ModelOutputError } from "../../../src/errors.ts";
import { askStructured, type RoleModel } from "../../../src/llm/ask.ts";
import { firstSentences, SELF_EVAL_FALLBACK, type Proposal, type SelfEvaluation } from "../../../src/search/proposer.ts";
import { rewardLayoutOf } from "../sandbox/contract.ts";
import type { RewardProposeContext, RewardProposer } from "../search/evaluator.ts";
import type { RewardTask } from "../task.ts";
import { alignMessages, proposalMessages, repairMessages, selfEvaluationMessages, taskText } from "./proposer-prompts.ts";

/**
 * The LLM proposer: one request per operator, laid out as its source sent it (proposer-prompts.ts), answered as
 * JSON with the design thought first, then the code
 * (askStructured: zod-validated, one retry with the error shown). An answer that stays unusable becomes a
 * candidate whose code defines no reward, so its training fails, counts against the budget and its error is
 * the next feedback (an unusable fix keeps the code it was to fix). A self-evaluation that is not a number in
 * [−1, 1] falls back to 0 (neutral), noted.
 */

const ProposalAnswer = z.object({
  thought: z.string().min(1).describe("the design thought: what the reward should make the policy do, and how"),
  code: z.string().min(1).describe("JavaScript defining function reward(obs, action, nextObs, info)"),
});
const SelfEvalAnswer = z.object({
  expert_plan: z.string().min(1).describe("how an expert-level policy completes the task: its plan and motion, step by step"),
  score: z.number().min(-1).max(1).describe("how closely the rewarded behaviour matches that plan, -1 (opposite) to 1 (exactly)"),
});
const AlignAnswer = z.object({ thought: z.string().min(1) });

export const NO_REWARD_CODE = "// the model gave no usable answer: there is no reward function here\n";

/**
 * The proposer on `model`; `modelFor`, when given, is the model each call goes to, by the candidate it is for
 * (hexa run meters the calls per candidate into usage.jsonl through it).
 */
export const llmProposer = (model: RoleModel, o: { modelFor?: (candidate: number | undefined) => RoleModel } = {}): RewardProposer => {
  // The action's kind (a discrete action reaches the code as its index) comes from the task's env, once per task.
  const kinds = new Map<string, "discrete" | "continuous">();
  const kindOf = async (task: RewardTask, instance: RewardProposeContext["instance"]) => {
    if (!kinds.has(task.id)) {
      await task.prepare?.();
      kinds.set(task.id, rewardLayoutOf(task, instance).actionKind);
    }
    return kinds.get(task.id)!;
  };
  const task = async (ctx: Pick<RewardProposeContext, "task" | "instance">): Promise<string> =>
    taskText(ctx.task, ctx.instance, await kindOf(ctx.task, ctx.instance));
  const modelAt = (ctx: Pick<RewardProposeContext, "index">): RoleModel => o.modelFor?.(ctx.index) ?? model;
  return {
    label: model.model,
    propose: async (kind, ctx): Promise<Proposal> => {
      try {
        const { value } = await askStructured(modelAt(ctx), proposalMessages(kind, ctx, await task(ctx)), ProposalAnswer, {
          name: "reward_proposal",
        });
        return { thought: value.thought, code: value.code };
      } catch (e) {
        if (!(e instanceof ModelOutputError)) throw e;
        return { thought: "(no usable answer)", code: NO_REWARD_CODE, note: `the ${kind} proposal was unusable: ${e.message}` };
      }
    },
    repair: async (kind, ctx, failed): Promise<Proposal> => {
      try {
        const { value } = await askStructured(modelAt(ctx), repairMessages(failed, await task(ctx)), ProposalAnswer, { name: "reward_repair" });
        return { thought: value.thought, code: value.code };
      } catch (e) {
        if (!(e instanceof ModelOutputError)) throw e;
        return { thought: failed.thought, code: failed.code, note: `the fix of the ${kind} proposal was unusable: ${e.message}` };
      }
    },
    selfEvaluate: async (node, ctx): Promise<SelfEvaluation> => {
      try {
        const { value } = await askStructured(modelAt(ctx), selfEvaluationMessages(node, await task(ctx)), SelfEvalAnswer, { name: "self_evaluation" });
        return { value: value.score };
      } catch (e) {
        if (!(e instanceof ModelOutputError)) throw e;
        return { value: SELF_EVAL_FALLBACK, note: `self-evaluation unusable (${e.message}); v_self = ${SELF_EVAL_FALLBACK} (neutral)` };
      }
    },
    align: async (code, thought, ctx) => {
      try {
        const messages = alignMessages(code, thought, await task(ctx));
        return firstSentences((await askStructured(modelAt(ctx), messages, AlignAnswer, { name: "thought_alignment" })).value.thought, 4);
      } catch (e) {
        if (!(e instanceof ModelOutputError)) throw e;
        return thought;
      }
    },
  };
};
