import { AIMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import type { ObservationSection } from "../src/family/task-env.ts";
import { answerOf, recordedCallOf, textOf } from "../src/llm/agent-messages.ts";
import type { AssistantTurn } from "../src/llm/chat-model.ts";
import { InvariantError } from "../src/errors.ts";
import type { Turn } from "./context.ts";

/**
 * What the context keeps of a tool's reply beside its text, on the agent's ToolMessage (`additional_kwargs`, which
 * the model is never sent): whether it is a pinned scene reading, and its sections for compaction.
 */
const CONTEXT_KEY = "hexa_context";

interface ReplyContext {
  pinned: boolean;
  compact: readonly ObservationSection[];
}

/** The additional_kwargs of a tool's reply that carry its context. */
export const replyContext = (c: ReplyContext): Record<string, unknown> => ({ [CONTEXT_KEY]: c });

const contextOf = (m: ToolMessage): ReplyContext | undefined => m.additional_kwargs?.[CONTEXT_KEY] as ReplyContext | undefined;

/** The last AI message among the agent's messages. */
export const lastAiMessage = (messages: readonly BaseMessage[]): AIMessage | undefined => {
  for (let i = messages.length - 1; i >= 0; i--) if (AIMessage.isInstance(messages[i])) return messages[i] as AIMessage;
  return undefined;
};

/** The latest model answer in the agent's messages (the one whose calls the tool node runs). */
export const latestAnswer = (messages: readonly BaseMessage[], model: string): AssistantTurn => {
  const last = lastAiMessage(messages);
  if (!last) throw new InvariantError("actor agent: a turn was recorded before any model answer");
  return answerOf(last, model);
};

/** The tools whose first scene reading the context already pins. */
export const pinnedToolsOf = (messages: readonly BaseMessage[]): Set<string> => {
  const tools = new Set<string>();
  for (const m of messages) if (ToolMessage.isInstance(m) && contextOf(m)?.pinned) tools.add(m.name ?? "");
  return tools;
};

/** The reply's sections while they still make up its text (a middleware may have edited it): else none. */
const sectionsOf = (m: ToolMessage): readonly ObservationSection[] | undefined => {
  const compact = contextOf(m)?.compact;
  return compact && compact.map((s) => s.text).join("\n") === textOf(m) ? compact : undefined;
};

const toolTurn = (ai: AIMessage, reply: ToolMessage, index: number): Turn => {
  const lc = ai.tool_calls?.find((c) => c.id === reply.tool_call_id);
  if (!lc)
    throw new Error(`actor context: message ${index} answers tool call ${JSON.stringify(reply.tool_call_id)}, which the AI message before it did not make`);
  const compact = sectionsOf(reply);
  return {
    thought: textOf(ai),
    call: recordedCallOf(answerOf(ai, "").toolCalls, lc),
    reply: textOf(reply),
    pinned: contextOf(reply)?.pinned === true,
    ...(compact ? { compact } : {}),
  };
};

const described = (m: BaseMessage | undefined): string => (m ? `a ${m.getType()} message` : "nothing");

const turnOf = (ai: BaseMessage | undefined, reply: BaseMessage | undefined, index: number): Turn => {
  if (!AIMessage.isInstance(ai)) throw new Error(`actor context: message ${index} after the task is ${described(ai)} where an AI message was expected`);
  if (ToolMessage.isInstance(reply)) return toolTurn(ai, reply, index + 1);
  if (HumanMessage.isInstance(reply) && (ai.tool_calls?.length ?? 0) === 0)
    return { thought: textOf(ai), call: undefined, reply: textOf(reply), pinned: false };
  throw new Error(`actor context: message ${index + 1} after the task is ${described(reply)} where the reply to an AI message was expected`);
};

/** A turn read from its two messages, and what of them it was read from (edited in place, they are read anew). */
interface ReadTurn {
  ai: AIMessage;
  aiContent: unknown;
  /** Each call as read (id, name and arguments' JSON): a call edited inside the same array is read anew. */
  aiCallsRead: readonly string[];
  aiKept: unknown;
  replyContent: unknown;
  replyKept: unknown;
  turn: Turn;
}

const callsRead = (ai: AIMessage): string[] => (ai.tool_calls ?? []).map((c) => `${c.id ?? ""}\u0000${c.name}\u0000${JSON.stringify(c.args)}`);

const sameCalls = (read: readonly string[], now: readonly string[]): boolean => read.length === now.length && read.every((c, k) => c === now[k]);

const unchanged = (had: ReadTurn, ai: AIMessage, reply: BaseMessage): boolean =>
  had.ai === ai &&
  had.aiContent === ai.content &&
  sameCalls(had.aiCallsRead, callsRead(ai)) &&
  had.aiKept === ai.additional_kwargs &&
  had.replyContent === reply.content &&
  had.replyKept === reply.additional_kwargs;

/** The turn of two messages, as read before while they are unchanged. */
const cachedTurnOf = (readTurns: WeakMap<BaseMessage, ReadTurn>, ai: BaseMessage | undefined, reply: BaseMessage | undefined, index: number): Turn => {
  if (!AIMessage.isInstance(ai) || !reply) return turnOf(ai, reply, index);
  const had = readTurns.get(reply);
  if (had && unchanged(had, ai, reply)) return had.turn;
  const turn = turnOf(ai, reply, index);
  readTurns.set(reply, {
    ai,
    aiContent: ai.content,
    aiCallsRead: callsRead(ai),
    aiKept: ai.additional_kwargs,
    replyContent: reply.content,
    replyKept: reply.additional_kwargs,
    turn,
  });
  return turn;
};

/**
 * A reader of the episode's turns in the agent's messages after the task (docs/spec/method.md §1.2): each an AI
 * message and then the reply to its call (a tool message) or, after an answer without a call, the nudge (a human
 * message). Anything else is refused, naming the message, since compaction could not say what it is.
 *
 * The agent's messages are the same objects from one request to the next, so a reader keeps each turn it read by
 * its reply and gives the same Turn object while the two messages are unchanged (agents/context.ts keeps its
 * rendering of a turn by that object).
 */
export const turnsReader = (): ((messages: readonly BaseMessage[]) => Turn[]) => {
  const readTurns = new WeakMap<BaseMessage, ReadTurn>();
  return (messages) => {
    const turns: Turn[] = [];
    for (let i = 0; i < messages.length; i += 2) turns.push(cachedTurnOf(readTurns, messages[i], messages[i + 1], i + 1));
    return turns;
  };
};
