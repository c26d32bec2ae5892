import { ToolMessage } from "@langchain/core/messages";
import { createMiddleware } from "langchain";
import type { ToolResult } from "../../src/family/task-env.ts";
import { recordCall, type EpisodeLedger } from "../episode-ledger.ts";
import type { CallOf } from "../env-tool.ts";
import type { ClientTool } from "@langchain/core/tools";

/** The family's whole result behind a tool message; one a middleware made without it reads as its text. */
const outcomeOf = (message: ToolMessage): ToolResult =>
  (message.artifact as ToolResult | undefined) ??
  (message.status === "error" ? { ok: false, error: message.text, observation: message.text } : { ok: true, observation: message.text });

/**
 * A tool call's turn: run by the task's tool (a name the task lacks goes to the family too, which answers with the
 * tools it has), recorded in the ledger with its time, and the episode ended when the family's rule says this
 * call ended it: finish, or auto-finish on a successful rollout (docs/spec/method.md §1.1). The model reads the
 * observation after the turn line.
 */
export const toolTurnMiddleware = (ledger: EpisodeLedger, callOf: CallOf, toolFor: (name: string) => ClientTool) =>
  createMiddleware({
    name: "hexa-tool-turn",
    wrapToolCall: async (request, handler) => {
      const result = await handler({ ...request, tool: request.tool ?? toolFor(request.toolCall.name) });
      if (!ToolMessage.isInstance(result)) return result;
      const read = recordCall(ledger, callOf(request.toolCall), outcomeOf(result));
      return new ToolMessage({
        content: read,
        tool_call_id: result.tool_call_id,
        name: result.name ?? request.toolCall.name,
        artifact: result.artifact,
        ...(result.status ? { status: result.status } : {}),
      });
    },
  });
