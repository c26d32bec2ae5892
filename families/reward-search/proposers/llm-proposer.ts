import { z } from "zod";
import { ModelOutputError } from "../../../src/errors.ts";
import type { ChatModel, Message } from "../../../src/llm/chat-model.ts";
import { invokeStructured } from "../../../src/llm/structured.ts";
import type { RewardTask, TaskInstance } from "../task.ts";
import {
  firstSentences,
  SELF_EVAL_FALLBACK,
  type CandidateView,
  type FailedAttempt,
  type Operator,
  type Proposal,
  type SelfEvaluation,
} from "../../../src/search/proposer.ts";
import type { RewardProposeContext, RewardProposer } from "../search/evaluator.ts";

/**
 * The LLM proposer: one prompt per operator, answered as JSON with the design thought first, then the code
 * (invokeStructured: zod-validated, one retry with the error shown). An answer that stays unusable becomes a
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

const taskText = (task: RewardTask, instance: TaskInstance) =>
  [
    `## The task: ${task.id} (seed ${instance.seed})`,
    task.description,
    `Fitness F: ${task.fitness.describe}; range [${task.fitness.range.join(", ")}]; solved at F ≥ ${task.fitness.solved}, measured with the final policy on evaluation seeds other than the training seed.`,
    "The reward is JavaScript: `function reward(obs, action, nextObs, info)` returning `{ total: number, components: { name: number, ... } }`.",
    `obs and nextObs have the fields ${task.observation.join(", ")}; info has ${task.info.join(", ")}; action has ${task.actionNames.join(", ")}.`,
    "It runs sandboxed (no require, no I/O, a CPU limit per call); PPO maximises total; name each term in components.",
  ].join("\n");

const shown = (c: CandidateView, label: string) =>
  [
    `### ${label} (#${c.index}, F ${c.fitness === null ? "training failed" : c.fitness.toFixed(2)})`,
    `Thought: ${c.thought}`,
    "```js",
    c.code,
    "```",
    `Feedback:\n${c.feedback}`,
  ].join("\n");

const ANSWER =
  'Answer with only a JSON object {"thought": "...", "code": "..."}: write the design thought first (what the policy should do and how the reward gets it there), then the code that carries it out.';

/** The instruction of each operator (RF-Agent's five, plus Eureka's initial sample and refinement). */
export const operatorPrompt = (kind: Operator, ctx: RewardProposeContext): string => {
  const p = ctx.parent;
  switch (kind) {
    case "initial":
      return "Write a first reward function for this task.";
    case "refine":
      return [
        "Here is the best reward so far and the reward reflection of its training. Write an improved reward: fix components that never change, rescale ones that dominate, add what is missing.",
        p ? shown(p, "Best reward so far") : "",
        ctx.feedback && ctx.feedback !== p?.feedback ? `Feedback:\n${ctx.feedback}` : "",
      ].join("\n\n");
    case "structural":
      return [
        "Structural mutation: change the structure of this reward — add, remove or replace a component — keeping what works.",
        p ? shown(p, "Reward") : "",
      ].join("\n\n");
    case "parameter":
      return ["Parameter mutation: keep this reward's components and change their weights, scales or thresholds.", p ? shown(p, "Reward") : ""].join("\n\n");
    case "crossover":
      return [
        "Crossover: combine the strengths of these rewards into one reward.",
        ...(ctx.elites ?? (p ? [p] : [])).map((e, i) => shown(e, `Elite ${i + 1}`)),
      ].join("\n\n");
    case "path":
      return [
        "Path reasoning: these are the rewards along this branch of the search, newest first. Reason about what changed from one to the next and how F moved, then write the next step along the path.",
        ...(ctx.ancestors ?? (p ? [p] : [])).map((a, i) => shown(a, i === 0 ? "Newest" : `Ancestor ${i}`)),
      ].join("\n\n");
    case "different":
      return [
        `Different thought: below is the current reward${ctx.others?.length ? " and rewards from other branches of the search" : ""}. Write a new reward function with a totally different form from ${ctx.others?.length ? "all of them" : "it"}: a different structure, flow or algorithm. For example, choose the observation fields most relevant to the task and replace the components built on others; stage the reward when the task has sub-goals (the next stage's terms only once the previous one is met); shape distances through nested functions (an exponential of a distance, a cosine similarity). The new reward should reach a higher F.`,
        p ? shown(p, "Current reward") : "",
        ...(ctx.others ?? []).map((o, i) => shown(o, `From another branch ${i + 1}`)),
      ].join("\n\n");
  }
};

/** RF-Agent's re-debug prompt: the code the check refused and its error; a fix, thought first. */
const repairPrompt = (failed: FailedAttempt): string =>
  [
    "Your reward function failed its check before training (it was compiled and run on sampled transitions):",
    "```js",
    failed.code,
    "```",
    `Error:\n${failed.error}`,
    `Its design thought: ${failed.thought}`,
    "Fix the bug so that the reward compiles and runs; keep the design unless the error shows it cannot work.",
  ].join("\n");

/**
 * RF-Agent's self-evaluation prompt: the node's design thought and code; the model first imagines how an
 * expert-level policy completes the task, then scores how closely the reward's behaviour matches that plan.
 */
const selfEvaluationPrompt = (node: { thought: string; code: string }): string =>
  [
    "Keep the task's definition in mind. Here is a reward function with its design thought.",
    `Design thought: ${node.thought}`,
    "```js",
    node.code,
    "```",
    "First imagine how an expert-level policy completes this task and describe its plan and motion, step by step. Then judge how closely the behaviour this reward function leads to matches that plan, as a number from -1 (opposite) to 1 (exactly).",
    'Answer with only a JSON object {"expert_plan": "...", "score": <number in [-1, 1]>}, the plan first.',
  ].join("\n");

const SYSTEM = "You design reward functions for reinforcement learning; each reward you write is trained with PPO and scored by the task's fitness F.";

export const NO_REWARD_CODE = "// the model gave no usable answer: there is no reward function here\n";

/**
 * The proposer on `model`; `modelFor`, when given, is the model each call goes to, by the candidate it is for
 * (hexa run meters the calls per candidate into usage.jsonl through it).
 */
export const llmProposer = (model: ChatModel, o: { modelFor?: (candidate: number | undefined) => ChatModel } = {}): RewardProposer => {
  const ask = (ctx: Pick<RewardProposeContext, "task" | "instance">, body: string): Message[] => [
    { role: "system", content: SYSTEM },
    { role: "user", content: `${taskText(ctx.task, ctx.instance)}\n\n${body}` },
  ];
  const modelAt = (ctx: Pick<RewardProposeContext, "index">): ChatModel => o.modelFor?.(ctx.index) ?? model;
  return {
    label: model.name,
    propose: async (kind, ctx): Promise<Proposal> => {
      try {
        const { value } = await invokeStructured(modelAt(ctx), ask(ctx, `${operatorPrompt(kind, ctx)}\n\n${ANSWER}`), ProposalAnswer, {
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
        const { value } = await invokeStructured(modelAt(ctx), ask(ctx, `${repairPrompt(failed)}\n\n${ANSWER}`), ProposalAnswer, { name: "reward_repair" });
        return { thought: value.thought, code: value.code };
      } catch (e) {
        if (!(e instanceof ModelOutputError)) throw e;
        return { thought: failed.thought, code: failed.code, note: `the fix of the ${kind} proposal was unusable: ${e.message}` };
      }
    },
    selfEvaluate: async (node, ctx): Promise<SelfEvaluation> => {
      try {
        const { value } = await invokeStructured(modelAt(ctx), ask(ctx, selfEvaluationPrompt(node)), SelfEvalAnswer, { name: "self_evaluation" });
        return { value: value.score };
      } catch (e) {
        if (!(e instanceof ModelOutputError)) throw e;
        return { value: SELF_EVAL_FALLBACK, note: `self-evaluation unusable (${e.message}); v_self = ${SELF_EVAL_FALLBACK} (neutral)` };
      }
    },
    align: async (code, thought, ctx) => {
      const body = [
        "Thought alignment: this reward trained successfully. Re-write its design thought so that it describes exactly what the code does, in at most 4 sentences.",
        `Thought as written: ${thought}`,
        "```js",
        code,
        "```",
        'Answer with only a JSON object {"thought": "..."}.',
      ].join("\n");
      try {
        return firstSentences((await invokeStructured(modelAt(ctx), ask(ctx, body), AlignAnswer, { name: "thought_alignment" })).value.thought, 4);
      } catch (e) {
        if (!(e instanceof ModelOutputError)) throw e;
        return thought;
      }
    },
  };
};
