import { createMiddleware } from "langchain";
import { textOf } from "../../src/llm/agent-messages.ts";
import { turnsReader } from "../agent-turns.ts";
import { requestBuilder, type CompactionOptions } from "../context.ts";

/**
 * Context control (docs/spec/method.md §1.2): each request is built from the turns in the agent's messages (as
 * the state and the outer middleware left them), old observations compacted by the family's sections and the
 * whole held under the request cap (agents/context.ts), after the system prompt and the task. A middleware that
 * edits the graph's messages changes what the model reads; one after this one sees, and may change, the request
 * as sent.
 */
export const compactionMiddleware = (options: CompactionOptions) => {
  const build = requestBuilder(options);
  const turnsOf = turnsReader();
  return createMiddleware({
    name: "hexa-compaction",
    wrapModelCall: (request, handler) => {
      const [task, ...afterTask] = request.messages;
      return handler({ ...request, messages: build(request.systemPrompt ?? "", task ? textOf(task) : "", turnsOf(afterTask)) });
    },
  });
};
