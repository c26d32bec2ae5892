import { ToolMessage } from "@langchain/core/messages";
import type { ClientTool } from "@langchain/core/tools";
import { Command } from "@langchain/langgraph";
import { createMiddleware } from "langchain";
import type { ToolResult } from "../../src/family/task-env.ts";
import { recordedCallOf } from "../../src/llm/agent-messages.ts";
import { latestAnswer, pinnedToolsOf, replyContext } from "../agent-turns.ts";
import { callTurn, EpisodeStateSchema, type EpisodeRules } from "../episode-state.ts";

/** The family's whole result behind a tool message; one a middleware made without it reads as its text. */
const outcomeOf = (message: ToolMessage): ToolResult =>
  (message.artifact as ToolResult | undefined) ??
  (message.status === "error" ? { ok: false, error: message.text, observation: message.text } : { ok: true, observation: message.text });

/**
 * A tool call's turn: run by the task's tool (a name the task lacks goes to the family too, which answers with the
 * tools it has), recorded in the agent's state with its time, and the episode ended when the family's rule says
 * this call ended it: finish, or auto-finish on a successful rollout (docs/spec/method.md §1.1). The model reads
 * the observation after the turn line; the message keeps what compaction needs (agents/agent-turns.ts).
 */
export const toolTurnMiddleware = (rules: EpisodeRules, toolFor: (name: string) => ClientTool) =>
  createMiddleware({
    name: "hexa-tool-turn",
    stateSchema: EpisodeStateSchema,
    wrapToolCall: async (request, handler) => {
      const result = await handler({ ...request, tool: request.tool ?? toolFor(request.toolCall.name) });
      if (!ToolMessage.isInstance(result)) return result;
      const { state } = request;
      const answer = latestAnswer(state.messages, state.episode.servedModel);
      const call = recordedCallOf(answer.toolCalls, request.toolCall);
      const turn = callTurn(state.episode, answer, call, outcomeOf(result), pinnedToolsOf(state.messages), rules);
      const message = new ToolMessage({
        content: turn.read,
        tool_call_id: result.tool_call_id,
        name: result.name ?? request.toolCall.name,
        artifact: result.artifact,
        additional_kwargs: replyContext({ pinned: turn.pinned, compact: turn.compact }),
        ...(result.status ? { status: result.status } : {}),
      });
      return new Command({ update: { messages: [message], episode: turn.episode } });
    },
  });
