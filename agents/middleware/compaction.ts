import { createMiddleware } from "langchain";
import { toAgentMessages } from "../../src/llm/agent-messages.ts";
import { buildMessages, type CompactionOptions } from "../context.ts";
import type { EpisodeLedger } from "../episode-ledger.ts";

/**
 * Context control (docs/spec/method.md §1.2): each request is built from the episode's turns, old observations
 * compacted by the family's sections and the whole held under the request cap (agents/context.ts), after the
 * system prompt and the task as the outer middleware left them. The graph's own message list is not what the
 * model reads; a middleware after this one sees, and may change, the request as sent.
 */
export const compactionMiddleware = (ledger: EpisodeLedger, options: CompactionOptions) =>
  createMiddleware({
    name: "hexa-compaction",
    wrapModelCall: (request, handler) => {
      const task = request.messages[0]?.text ?? "";
      const [, ...afterSystem] = buildMessages(request.systemPrompt ?? "", task, ledger.turns, options);
      return handler({ ...request, messages: toAgentMessages(afterSystem) });
    },
  });
