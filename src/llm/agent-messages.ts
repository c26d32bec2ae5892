import { AIMessage, HumanMessage, SystemMessage, ToolMessage, type BaseMessage, type ToolCall as LangchainToolCall } from "@langchain/core/messages";
import type { AssistantTurn, Message, ToolCall } from "./chat-model.ts";
import { hasMedia, partsOfContent } from "./content-parts.ts";

/**
 * Langchain's messages in hexa's record form (src/llm/chat-model.ts), which the audit log, response cache and
 * spend gate key on (docs/ARCHITECTURE.md §5), and hexa's answer as langchain's message. A call whose arguments
 * were no JSON object goes to langchain (and the wire) as `{}`. Langchain's tool
 * call has no slot for the raw argument text or its parse error, so each assistant message keeps the recorded
 * calls beside its own (`additional_kwargs[RECORDED_CALLS]`); on the way back they are used while they still match
 * the langchain calls, so a middleware that edits a call is heard and an untouched request is sent byte for byte.
 */
const RECORDED_CALLS = "hexa_tool_calls";
/** hexa's whole reading of the answer, kept on the AIMessage the agent records (usage, reasoning, problem, latency). */
const HEXA_TURN = "hexa_turn";

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** A recorded call as langchain sees it: arguments that are no JSON object (or did not parse) go as `{}`. */
const langchainCall = (c: ToolCall): LangchainToolCall => ({ id: c.id, name: c.name, args: isRecord(c.args) ? c.args : {}, type: "tool_call" });

/** Whether langchain's call is still the recorded one: the same arguments object (as made here), or equal ones. */
const sameCall = (recorded: ToolCall, lc: LangchainToolCall): boolean => {
  const mine = langchainCall(recorded);
  return mine.id === (lc.id ?? "") && mine.name === lc.name && (mine.args === lc.args || JSON.stringify(mine.args) === JSON.stringify(lc.args));
};

/** The recorded call behind langchain's tool call: one of `calls` it still matches, else one made from it. */
export const recordedCallOf = (calls: readonly ToolCall[], lc: LangchainToolCall): ToolCall =>
  calls.find((c) => sameCall(c, lc)) ?? { id: lc.id ?? "", name: lc.name, args: lc.args, rawArgs: JSON.stringify(lc.args) };

/** The recorded calls of an assistant message: the kept ones while langchain's still match them, else langchain's own. */
const recordedCalls = (m: AIMessage): ToolCall[] => {
  const lc = m.tool_calls ?? [];
  const kept = m.additional_kwargs[RECORDED_CALLS] as ToolCall[] | undefined;
  if (kept && kept.length === lc.length && kept.every((c, i) => sameCall(c, lc[i]!))) return kept;
  return lc.map((c) => recordedCallOf([], c));
};

/** An assistant message whose calls langchain carries, the recorded calls kept exactly beside them. */
export const assistantMessage = (content: string, calls: readonly ToolCall[], extra: Record<string, unknown> = {}): AIMessage =>
  new AIMessage({ content, tool_calls: calls.map(langchainCall), additional_kwargs: { [RECORDED_CALLS]: calls, ...extra } });

/** A message's text: its content when a string (langchain's `text` walks content blocks, for every message of every request). */
export const textOf = (m: BaseMessage): string => (typeof m.content === "string" ? m.content : m.text);

/** Langchain's messages in the record form; a kind the record has no role for is refused, naming it. */
export const toRecordMessages = (messages: readonly BaseMessage[]): Message[] =>
  messages.map((m) => {
    if (SystemMessage.isInstance(m)) return { role: "system", content: textOf(m) };
    if (HumanMessage.isInstance(m))
      return typeof m.content !== "string" && hasMedia(m.content)
        ? { role: "user", content: m.text, parts: partsOfContent(m.content) }
        : { role: "user", content: textOf(m) };
    if (AIMessage.isInstance(m)) return { role: "assistant", content: textOf(m), toolCalls: recordedCalls(m) };
    if (ToolMessage.isInstance(m)) return { role: "tool", content: textOf(m), toolCallId: m.tool_call_id, name: m.name ?? "" };
    throw new Error(`a ${m.getType()} message cannot be sent to hexa's role models (system, human, ai and tool messages can)`);
  });

/** hexa's reading of an answer as the AIMessage a conversation appends: langchain's calls and usage, the whole answer kept beside them. */
export const answerMessage = (turn: AssistantTurn): AIMessage => {
  const message = assistantMessage(turn.text, turn.toolCalls, { [HEXA_TURN]: turn });
  message.usage_metadata = {
    input_tokens: turn.usage.input,
    output_tokens: turn.usage.output,
    total_tokens: turn.usage.input + turn.usage.output,
    input_token_details: { cache_read: turn.usage.cached },
  };
  message.response_metadata = { model_name: turn.model };
  return message;
};

/**
 * hexa's reading of the answer behind an AIMessage, as the model gave it (all its calls, however many a middleware kept);
 * a message made by a middleware (no answer kept) reads as an answer of its text and calls, with no usage.
 */
export const answerOf = (m: AIMessage, model: string): AssistantTurn => {
  const kept = m.additional_kwargs[HEXA_TURN] as AssistantTurn | undefined;
  if (kept) return kept;
  return { text: textOf(m), toolCalls: recordedCalls(m), usage: { input: 0, output: 0, cached: 0 }, model, latencyMs: 0, fromCache: false };
};
