import type { AIMessage, OpenAIToolCall } from "@langchain/core/messages";
import type { AssistantTurn, ToolCall, ToolSpec } from "./chat-model.ts";
import { parseToolArgs } from "./tool-args.ts";

export const toOpenAITool = (t: ToolSpec) => ({
  type: "function" as const,
  function: { name: t.name, description: t.description, parameters: t.parameters },
});

/** A turn as langchain gave it: a call's id may be "" (the server sent none), `repaired` says how its arguments were read. */
export type LangchainTurn = Omit<AssistantTurn, "latencyMs" | "fromCache" | "toolCalls"> & { toolCalls: Array<ToolCall & { repaired?: string }> };

/** The parts of langchain's AIMessage / AIMessageChunk this layer reads. */
export type LangchainAnswer = Pick<AIMessage, "content" | "additional_kwargs" | "response_metadata" | "usage_metadata">;

const textOf = (content: LangchainAnswer["content"]): string =>
  typeof content === "string" ? content : content.map((block) => (block.type === "text" && typeof block.text === "string" ? block.text : "")).join("");

const numberOr0 = (v: unknown): number => (typeof v === "number" && Number.isFinite(v) ? v : 0);

/**
 * The turn without timing. Tool calls come from the wire form (`additional_kwargs.tool_calls`), not from
 * `tool_calls`/`invalid_tool_calls`: when streaming, langchain's partial-JSON parser turns truncated arguments
 * into a valid-looking `{}`, and only the wire form keeps the exact text the model wrote.
 */
export const fromLangchainAnswer = (answer: LangchainAnswer, requestedModel: string): LangchainTurn => {
  const wire: OpenAIToolCall[] = answer.additional_kwargs.tool_calls ?? [];
  const toolCalls = wire.map((call) => {
    // Some servers send the arguments as an object although the wire type says string (tool-args.ts).
    const { repaired, ...parsed } = parseToolArgs(call.function.name, call.function.arguments as unknown);
    return { id: call.id ?? "", name: call.function.name, ...parsed, ...(repaired ? { repaired } : {}) };
  });
  const meta = answer.response_metadata as { model_name?: unknown; usage?: Record<string, unknown> };
  const wireUsage = meta.usage ?? {};
  const usage = answer.usage_metadata;
  return {
    text: textOf(answer.content),
    toolCalls,
    usage: {
      input: numberOr0(usage?.input_tokens ?? wireUsage.prompt_tokens),
      output: numberOr0(usage?.output_tokens ?? wireUsage.completion_tokens),
      cached: numberOr0(usage?.input_token_details?.cache_read ?? (wireUsage.prompt_tokens_details as { cached_tokens?: unknown } | undefined)?.cached_tokens),
    },
    model: typeof meta.model_name === "string" && meta.model_name ? meta.model_name : requestedModel,
  };
};
