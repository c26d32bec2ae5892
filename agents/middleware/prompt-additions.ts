import { HumanMessage } from "@langchain/core/messages";
import { createMiddleware } from "langchain";
import { textOf } from "../../src/llm/agent-messages.ts";
import { withDiagnosticAddendum, withPromptAdditions, type PromptAdditions } from "../prompt.ts";

export interface PromptAdditionsOptions extends PromptAdditions {
  /** The HExA actor's diagnostic addendum after the task (docs/spec/method.md §1.1); given only with a skill block. */
  addendum?: { experiment?: string };
}

/**
 * What an agent adds to the base prompt on every call (docs/spec/method.md §1.1, §7): the retriever's skill block
 * and Reflexion's reflections after the system prompt, and the hexa actor's diagnostic addendum after the task.
 */
export const promptAdditionsMiddleware = (o: PromptAdditionsOptions) =>
  createMiddleware({
    name: "hexa-prompt-additions",
    wrapModelCall: (request, handler) => {
      const [task, ...rest] = request.messages;
      const messages = o.addendum && task ? [new HumanMessage(withDiagnosticAddendum(textOf(task), o.addendum.experiment)), ...rest] : request.messages;
      return handler({ ...request, systemPrompt: withPromptAdditions(request.systemPrompt ?? "", o), messages });
    },
  });
