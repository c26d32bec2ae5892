import { AIMessage, ToolMessage } from "@langchain/core/messages";
import { createMiddleware } from "langchain";
import { kept } from "../../src/family/observation.ts";
import type { ToolResult } from "../../src/family/task-env.ts";

/**
 * One tool call per turn (docs/spec/method.md §1.1): of an answer's calls only the first reaches the tool node
 * (langchain would run them all, in parallel), and its observation says how many were made.
 */
export const oneToolCallMiddleware = () => {
  let made = 0;
  return createMiddleware({
    name: "hexa-one-tool-call",
    wrapModelCall: async (request, handler) => {
      const answer = await handler(request);
      made = answer.tool_calls?.length ?? 0;
      if (made <= 1) return answer;
      return new AIMessage({
        content: answer.content,
        tool_calls: answer.tool_calls!.slice(0, 1),
        additional_kwargs: answer.additional_kwargs,
        response_metadata: answer.response_metadata,
        ...(answer.usage_metadata ? { usage_metadata: answer.usage_metadata } : {}),
        ...(answer.id ? { id: answer.id } : {}),
      });
    },
    wrapToolCall: async (request, handler) => {
      const result = await handler(request);
      if (made <= 1 || !ToolMessage.isInstance(result)) return result;
      const note = `Note: you made ${made} tool calls; only the first (${request.toolCall.name}) was executed. Make one call per turn.`;
      const outcome = result.artifact as ToolResult | undefined;
      return new ToolMessage({
        content: `${result.text}\n${note}`,
        tool_call_id: result.tool_call_id,
        name: result.name ?? request.toolCall.name,
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
    },
  });
};
