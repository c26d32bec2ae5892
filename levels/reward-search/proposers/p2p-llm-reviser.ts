import { AIMessage, type BaseMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { z } from "zod";
import { ModelOutputError } from "../../../src/errors.ts";
import { ask, askStructured, type RoleModel, unusableAnswer } from "../../../src/llm/ask.ts";
import type { AssistantTurn } from "../../../src/llm/chat-model.ts";
import { extractJson } from "../../../src/llm/structured-read.ts";
import { MAX_CORRECTIONS } from "../../../src/search/p2p-corrections.ts";
import { hpChangeProblem } from "../../../src/search/p2p-hp.ts";
import type { HpSpace, Reviser, ReviseContext, Revision } from "../../../src/search/p2p-ports.ts";
import { revisionProblem } from "../../../src/search/p2p-revision.ts";
import { rewardLayoutOf } from "../sandbox/contract.ts";
import type { RewardTask, TaskInstance } from "../task.ts";
import { NO_REWARD_CODE } from "./llm-proposer.ts";
import { proposalMessages, taskText } from "./proposer-prompts.ts";
import { revisionMessages, variantMessages } from "./p2p-prompts.ts";
import { MAX_TOOL_ROUNDS, reviserTools, type ReviserTools } from "./p2p-reviser-tools.ts";

/**
 * The p2p reviser on a model: per revision one conversation (p2p-prompts.ts) in which it may read its search's
 * lineage and change lessons' tiers through its tools (p2p-reviser-tools.ts) before answering; its answer held to a zod schema that
 * also checks the reviser's rules (p2p-revision.ts: basedOn, 1–2 changes, the structural rewrite after a
 * plateau, HP bounds, how each of the user's outstanding corrections is addressed), with one retry showing the
 * problem; one request per HP variant. An answer that stays unusable keeps the search going, noted: the best
 * iteration's code and HPs again (after a plateau, the best code on the current iteration, which differs from
 * it), its corrections marked not addressed so the next revision is asked again; an unusable variant changes nothing.
 * The tier changes recorded by its tool calls go with the revision, the unusable one's included: each was checked
 * when made and carries the model's own reason.
 */

const HpChanges = z.record(z.string(), z.tuple([z.number(), z.number()])).default({});

const RevisionAnswer = z.object({
  diagnosis: z.string().min(1).max(4000),
  lesson: z.string().min(1).max(1000),
  basedOn: z.number().int().min(0),
  rewardChanges: z.array(z.string().min(1).max(1000)).max(20),
  structural: z.boolean(),
  noChange: z.boolean(),
  code: z.string().max(20_000),
  hpChanges: HpChanges,
  /** How the revision addresses each outstanding correction, by its index. */
  corrections: z
    .array(z.strictObject({ correction: z.number().int().min(0), how: z.string().min(1).max(2000) }))
    .max(MAX_CORRECTIONS)
    .default([]),
});

const revisionSchema = (ctx: ReviseContext<RewardTask, TaskInstance>) =>
  RevisionAnswer.superRefine((a, issues) => {
    const base = (i: number) => ctx.history[i];
    const problem = revisionProblem(a, { iteration: ctx.iteration, plateau: ctx.plateau, space: ctx.space, base, outstanding: ctx.corrections });
    if (problem) issues.addIssue({ code: "custom", message: problem });
  });

/** The checked answer as a revision: every correction it answers is addressed in its words. */
const revisionOf = (a: z.infer<typeof RevisionAnswer>): Revision => {
  const { corrections, ...rest } = a;
  return { ...rest, ...(corrections.length ? { corrections: corrections.map((c) => ({ ...c, addressed: true })) } : {}) };
};

const fallback = (ctx: ReviseContext<RewardTask, TaskInstance>, why: string): Revision => {
  const note = `the revision was unusable: ${why}`;
  const how = `not addressed: the revision was unusable (${why.slice(0, 300)})`;
  const corrections = ctx.corrections.map((c) => ({ correction: c.index, how, addressed: false }));
  const common = { diagnosis: "(no usable answer)", lesson: "", hpChanges: {}, note, ...(corrections.length ? { corrections } : {}) };
  if (ctx.plateau)
    return {
      ...common,
      basedOn: ctx.current.iteration,
      rewardChanges: ["the best iteration's reward again"],
      structural: true,
      noChange: false,
      code: ctx.best.code,
    };
  return { ...common, basedOn: ctx.best.iteration, rewardChanges: [], structural: false, noChange: true, code: ctx.best.code };
};

const variantSchema = (space: HpSpace, hp: Readonly<Record<string, number>>) =>
  z.object({ hpChanges: HpChanges }).superRefine((a, issues) => {
    const problem = hpChangeProblem(a.hpChanges, hp, space);
    if (problem) issues.addIssue({ code: "custom", message: problem });
  });

export const TOOL_CAP_NOTE = `You have used all ${MAX_TOOL_ROUNDS} tool rounds: no more reads or tier changes. Give your final answer now, as the JSON object alone.`;

const describeIssues = (e: z.ZodError): string =>
  e.issues
    .slice(0, 5)
    .map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`)
    .join("; ");

/** The answer of a turn that called no tool, or the problem to show back. */
const checked = <S extends z.ZodType>(turn: AssistantTurn, schema: S): { value: z.infer<S> } | { problem: string } => {
  if (turn.problem) return { problem: turn.problem };
  try {
    const parsed = schema.safeParse(extractJson(turn.text));
    return parsed.success ? { value: parsed.data } : { problem: `the JSON does not match the schema: ${describeIssues(parsed.error)}` };
  } catch (e) {
    if (!(e instanceof ModelOutputError)) throw e;
    return { problem: e.message };
  }
};

/**
 * The revision's conversation: the model may call the tools for up to MAX_TOOL_ROUNDS rounds, each call answered;
 * a turn without calls is its answer, held to the schema, with the one retry (asked for as structured output,
 * without tools). Over the cap, it is told so and asked for the answer (structured output, one retry).
 */
const revisionAnswer = async <S extends z.ZodType>(model: RoleModel, messages: BaseMessage[], schema: S, tools: ReviserTools): Promise<z.infer<S>> => {
  let conversation = messages;
  for (let round = 0; round < MAX_TOOL_ROUNDS; round++) {
    const { message, turn } = await ask(model, conversation, tools.specs);
    if (turn.toolCalls.length === 0) {
      const answer = checked(turn, schema);
      if ("value" in answer) return answer.value;
      const retry = [...conversation, new AIMessage({ content: turn.text, tool_calls: [] }), unusableAnswer(answer.problem)];
      return (await askStructured(model, retry, schema, { name: "p2p_revision", retries: 0 })).value;
    }
    conversation = [...conversation, message, ...turn.toolCalls.map((c) => new ToolMessage({ content: tools.answer(c), tool_call_id: c.id, name: c.name }))];
  }
  return (await askStructured(model, [...conversation, new HumanMessage(TOOL_CAP_NOTE)], schema, { name: "p2p_revision" })).value;
};

export const llmReviser = (model: RoleModel): Reviser<RewardTask, TaskInstance> => {
  const taskOf = async (task: RewardTask, instance: TaskInstance) => {
    await task.prepare?.();
    return taskText(task, instance, rewardLayoutOf(task, instance).actionKind);
  };
  return {
    label: model.model,
    initial: async (ctx) => {
      const messages = proposalMessages(
        "initial",
        { task: ctx.task, instance: ctx.instance, seen: new Set(), rng: ctx.rng, lessons: ctx.lessons },
        await taskOf(ctx.task, ctx.instance),
      );
      const answer = z.object({ thought: z.string().min(1), code: z.string().min(1) });
      try {
        return (await askStructured(model, messages, answer, { name: "reward_proposal" })).value;
      } catch (e) {
        if (!(e instanceof ModelOutputError)) throw e;
        return { thought: `(no usable answer: ${e.message})`, code: NO_REWARD_CODE };
      }
    },
    revise: async (ctx) => {
      const tools = reviserTools(ctx.lineage, ctx.iteration);
      const withTiers = (r: Revision): Revision => {
        const tierChanges = tools.tierChanges();
        return tierChanges.length ? { ...r, tierChanges } : r;
      };
      try {
        const messages = revisionMessages(ctx, await taskOf(ctx.task, ctx.instance));
        return withTiers(revisionOf(await revisionAnswer(model, messages, revisionSchema(ctx), tools)));
      } catch (e) {
        if (!(e instanceof ModelOutputError)) throw e;
        return withTiers(fallback(ctx, e.message));
      }
    },
    variants: async (ctx, directives) => {
      const out = [];
      for (const d of directives) {
        try {
          out.push((await askStructured(model, variantMessages(ctx, d), variantSchema(ctx.space, ctx.hp), { name: "hp_variant" })).value.hpChanges);
        } catch (e) {
          if (!(e instanceof ModelOutputError)) throw e;
          out.push({});
        }
      }
      return out;
    },
  };
};
