import { ToolMessage } from "@langchain/core/messages";
import { createMiddleware, ToolInvocationError } from "langchain";
import { EnvTool, runCall } from "../env-tool.ts";
import { rootCause } from "./root-cause.ts";

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * A call's arguments reach the family once (docs/ARCHITECTURE.md §5.1): langchain's tool node parses them with
 * the tool's zod schema and the family runs the parsed call. A call langchain cannot carry (arguments that were
 * no JSON, or no JSON object, which it holds as `{}`) goes to the family as the model made it; one the schema
 * refuses is answered by the family in its own words (what to change), as a call it parsed itself would be.
 */
export const toolInputMiddleware = () =>
  createMiddleware({
    name: "hexa-tool-input",
    wrapToolCall: async (request, handler) => {
      const tool = request.tool;
      if (!(tool instanceof EnvTool) || !tool.parses) return handler(request);
      const call = runCall(request.toolCall, request.state.messages);
      if (call.argsError || !isRecord(call.args)) return handler({ ...request, tool: tool.asMade() });
      try {
        return await handler(request);
      } catch (e) {
        if (!(rootCause(e) instanceof ToolInvocationError)) throw e;
        const outcome = await tool.answerAsMade(call);
        return new ToolMessage({ content: outcome.observation, artifact: outcome, tool_call_id: request.toolCall.id ?? "", name: tool.name });
      }
    },
  });
