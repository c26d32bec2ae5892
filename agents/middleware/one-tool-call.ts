import { AIMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { createMiddleware } from "langchain";
import { kept } from "../../src/family/observation.ts";
import type { ToolResult } from "../../src/family/task-env.ts";
import { lastAiMessage } from "../agent-turns.ts";

/** How many calls the answer made, on the AI message whose calls were cut to the first (in the agent's state). */
const CALLS_MADE = "hexa_calls_made";

/** The calls the latest answer made (1 when it was not cut). */
const callsMade = (messages: readonly BaseMessage[]): number => {
  const last = lastAiMessage(messages);
  return (last?.additional_kwargs[CALLS_MADE] as number | undefined) ?? 1;
};

/** The answer with only its first call, saying how many it made. */
const firstCallOnly = (answer: AIMessage): AIMessage =>
  new AIMessage({
    content: answer.content,
    tool_calls: answer.tool_calls!.slice(0, 1),
    additional_kwargs: { ...answer.additional_kwargs, [CALLS_MADE]: answer.tool_calls!.length },
    response_metadata: answer.response_metadata,
    ...(answer.usage_metadata ? { usage_metadata: answer.usage_metadata } : {}),
    ...(answer.id ? { id: answer.id } : {}),
  });

/** The tool's reply with the note appended, to its text and to the family's result behind it. */
const noted = (result: ToolMessage, tool: string, note: string): ToolMessage => {
  const outcome = result.artifact as ToolResult | undefined;
  return new ToolMessage({
    content: `${result.text}\n${note}`,
    tool_call_id: result.tool_call_id,
    name: result.name ?? tool,
    ...(result.status ? { status: result.status } : {}),
    ...(outcome
      ? {
          artifact: {
            ...outcome,
            observation: `${outcome.observation}\n${note}`,
            ...(outcome.compact ? { compact: [...outcome.compact, kept(note)] } : {}),
          },
        }
      : {}),
  });
};

/**
 * One tool call per turn (docs/spec/method.md §1.1): of an answer's calls only the first reaches the tool node
 * (langchain would run them all, in parallel), and its observation says how many were made.
 */
export const oneToolCallMiddleware = () =>
  createMiddleware({
    name: "hexa-one-tool-call",
    wrapModelCall: async (request, handler) => {
      const answer = await handler(request);
      return (answer.tool_calls?.length ?? 0) <= 1 ? answer : firstCallOnly(answer);
    },
    wrapToolCall: async (request, handler) => {
      const result = await handler(request);
      const made = callsMade(request.state.messages);
      if (made <= 1 || !ToolMessage.isInstance(result)) return result;
      return noted(
        result,
        request.toolCall.name,
        `Note: you made ${made} tool calls; only the first (${request.toolCall.name}) was executed. Make one call per turn.`,
      );
    },
  });
