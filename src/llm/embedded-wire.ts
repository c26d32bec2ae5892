import type { AIMessage, BaseMessage, OpenAIToolCall } from "@langchain/core/messages";
import { readAnswer, type Notice } from "./answer-read.ts";
import type { Wire } from "./chat-model.ts";
import { fromLangchainAnswer, toOpenAITool, type LangchainAnswer } from "./langchain-messages.ts";
import type { LlamaCppChatModel } from "./llama-cpp/chat-model.ts";

/** The embedded model's answer in the wire form an endpoint's answer is read from: its tool call as OpenAI sends one. */
const asWireAnswer = (m: AIMessage): LangchainAnswer => {
  const valid: OpenAIToolCall[] = (m.tool_calls ?? []).map((c) => ({
    id: c.id ?? "",
    type: "function",
    function: { name: c.name, arguments: JSON.stringify(c.args) },
  }));
  // A call cut by the output cap keeps the exact text the model wrote, read (and refused) as an endpoint's would be.
  const invalid: OpenAIToolCall[] = (m.invalid_tool_calls ?? []).map((c) => ({
    id: c.id ?? "",
    type: "function",
    function: { name: c.name ?? "", arguments: c.args ?? "" },
  }));
  return { ...m, content: m.content, additional_kwargs: { ...m.additional_kwargs, tool_calls: [...valid, ...invalid] } };
};

export interface EmbeddedWireOptions {
  /** The configured file path: the name requests are keyed by, so that a replay of the run finds them. */
  name: string;
  /** What answered: the file's hash (`gguf:sha256:…`), reported as the answer's model. */
  identity: string;
  where: string;
  maxOutputTokens: number | null;
  notice: (n: Notice) => void;
}

/**
 * The embedded model as the innermost layer of a role's pipeline (src/llm/role-model.ts): it is asked the request's
 * own langchain messages (`requestMessages`; the layers key on their record form), with the request's tools bound (each answer
 * one call under their grammar) or a JSON answer under the output's schema, and its answer is read as an
 * endpoint's is (answer-read.ts).
 */
export const embeddedWire = (chat: LlamaCppChatModel, requestMessages: readonly BaseMessage[], o: EmbeddedWireOptions): Wire => ({
  name: o.name,
  invoke: async (messages, tools, output) => {
    const started = performance.now();
    const runnable =
      tools.length > 0
        ? chat.withConfig({ tools: tools.map(toOpenAITool) })
        : output
          ? chat.withConfig({ response_format: { type: "json_schema", json_schema: { name: output.name, schema: output.schema } } })
          : chat;
    const answer = (await runnable.invoke([...requestMessages])) as AIMessage;
    const turn = readAnswer(fromLangchainAnswer(asWireAnswer(answer), o.identity), {
      where: o.where,
      messages,
      tools,
      maxOutputTokens: o.maxOutputTokens,
      notice: o.notice,
    });
    return { ...turn, model: o.identity, latencyMs: performance.now() - started, fromCache: false };
  },
});
