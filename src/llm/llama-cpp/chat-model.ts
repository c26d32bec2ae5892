import { randomUUID } from "node:crypto";
import type { BaseLanguageModelInput } from "@langchain/core/language_models/base";
import { BaseChatModel, type BaseChatModelCallOptions, type BindToolsInput } from "@langchain/core/language_models/chat_models";
import { ContextOverflowError } from "@langchain/core/errors";
import { AIMessage, type AIMessageChunk, type BaseMessage, type InvalidToolCall, type ToolCall } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import { RunnableLambda, type Runnable } from "@langchain/core/runnables";
import { convertToOpenAITool } from "@langchain/core/utils/function_calling";
import { toJsonSchema } from "@langchain/core/utils/json_schema";
import type { ChatHistoryItem, LlamaContextSequence, LlamaGrammar } from "node-llama-cpp";
import { ModelOutputError } from "../../errors.ts";
import { splitThink } from "../think.ts";
import type { LlamaCppModelConfig } from "./config.ts";
import { toChatHistory } from "./history.ts";
import { toGbnfSchema, toolCallSchema, type FunctionTool } from "./json-grammar.ts";
import type { LlamaModels, SharedModel } from "./loaded-models.ts";
import { promptTokens } from "./prompt-tokens.ts";

/** An answer held to a JSON schema, as OpenAI's `response_format` names it. */
interface JsonSchemaFormat {
  type: "json_schema";
  json_schema: { name: string; schema: Record<string, unknown> };
}

export interface LlamaCppCallOptions extends BaseChatModelCallOptions {
  tools?: FunctionTool[];
  response_format?: JsonSchemaFormat;
}

export interface LlamaCppChatModelFields {
  config: LlamaCppModelConfig;
  /** The process's loaded models, shared by every role (made and closed by the composition root). */
  models: LlamaModels;
  /** Config path named in errors, e.g. "llm.actor". */
  where: string;
}

/** One answer to write: the model, the sequence it is written on, what it continues, under which grammar. */
interface Completion {
  shared: SharedModel;
  sequence: LlamaContextSequence;
  history: ChatHistoryItem[];
  grammar: LlamaGrammar | undefined;
  maxTokens: number;
}

/** What the model wrote: the answer, reasoning handed apart by the template, the tokens generated, why it stopped. */
interface Generated {
  text: string;
  thought: string;
  outputTokens: number;
  finish: "stop" | "length";
}

type Held = { kind: "tools"; tools: FunctionTool[] } | { kind: "json"; schema: Record<string, unknown> } | undefined;

const heldOf = (o: LlamaCppCallOptions): Held => {
  if (o.tools?.length && o.tool_choice !== "none") return { kind: "tools", tools: o.tools };
  if (o.response_format) return { kind: "json", schema: o.response_format.json_schema.schema };
  return undefined;
};

/** The answer's tool call, read from the grammar-held text: parsed, or kept as invalid (an answer cut by the cap). */
const callsOf = (text: string, tools: readonly FunctionTool[]): { tool_calls: ToolCall[]; invalid_tool_calls: InvalidToolCall[] } => {
  const id = `call_${randomUUID().replaceAll("-", "").slice(0, 24)}`;
  try {
    const call = JSON.parse(text) as { name: string; arguments: Record<string, unknown> };
    const tool = tools.find((t) => t.function.name === call.name);
    if (!tool) throw new Error(`no tool is named ${JSON.stringify(call.name)}`);
    return { tool_calls: [{ type: "tool_call", id, name: call.name, args: call.arguments }], invalid_tool_calls: [] };
  } catch (e) {
    return { tool_calls: [], invalid_tool_calls: [{ type: "invalid_tool_call", id, name: undefined, args: text, error: (e as Error).message }] };
  }
};

/** The answer as langchain's message: its one tool call or its text, reasoning apart, usage, cost 0. */
const answerOf = (out: Generated, held: Held, inputTokens: number, modelName: string): AIMessage => {
  const { text, thought, outputTokens, finish } = out;
  const usage = { input_tokens: inputTokens, output_tokens: outputTokens, total_tokens: inputTokens + outputTokens };
  // A template with thought segments (Qwen, DeepSeek …) hands reasoning apart; another leaves <think> in the text.
  const split = held ? { text, think: "" } : splitThink(text);
  const answer = split.text;
  const think = [thought, split.think].filter(Boolean).join("\n\n");
  const calls = held?.kind === "tools" ? callsOf(answer, held.tools) : { tool_calls: [], invalid_tool_calls: [] };
  return new AIMessage({
    content: held?.kind === "tools" ? "" : answer,
    ...calls,
    additional_kwargs: think ? { reasoning_content: think } : {},
    usage_metadata: usage,
    response_metadata: {
      model_name: modelName,
      finish_reason: finish,
      usage: { prompt_tokens: inputTokens, completion_tokens: outputTokens },
      cost: 0,
    },
  });
};

/**
 * A GGUF model run in this process by node-llama-cpp, as a langchain chat model. With tools bound, every answer is
 * exactly one tool call (hexa's rule: one action per turn), generated under a grammar made from the tools' JSON
 * schemas, so even a weak model's call parses; with `response_format` (or `withStructuredOutput`) the answer is JSON
 * under the schema's grammar. Usage is counted from the model's tokenizer; an embedded model costs nothing.
 */
export class LlamaCppChatModel extends BaseChatModel<LlamaCppCallOptions> {
  readonly config: LlamaCppModelConfig;
  private readonly models: LlamaModels;
  private readonly where: string;

  constructor(fields: LlamaCppChatModelFields) {
    super({});
    this.config = fields.config;
    this.models = fields.models;
    this.where = fields.where;
  }

  _llmType(): string {
    return "llama-cpp";
  }

  override bindTools(tools: BindToolsInput[], kwargs?: Partial<LlamaCppCallOptions>): Runnable<BaseLanguageModelInput, AIMessageChunk, LlamaCppCallOptions> {
    return this.withConfig({ tools: tools.map((t) => convertToOpenAITool(t) as FunctionTool), ...kwargs });
  }

  /** The answer as JSON under the schema's grammar, parsed (and checked by the schema when it is a zod schema). */
  // biome-ignore lint/suspicious/noExplicitAny: the signature of BaseChatModel's overloads, which this overrides
  override withStructuredOutput<T extends Record<string, any>>(
    schema: unknown,
    config?: { name?: string; includeRaw?: boolean; method?: string },
  ): Runnable<BaseLanguageModelInput, T> {
    if (config?.includeRaw || config?.method === "functionCalling")
      return super.withStructuredOutput<T>(schema as Record<string, unknown>, config as never) as Runnable<BaseLanguageModelInput, T>;
    const parser = typeof (schema as { parse?: unknown }).parse === "function" ? (schema as { parse: (v: unknown) => T }) : undefined;
    const jsonSchema = (parser ? toJsonSchema(schema as never) : schema) as Record<string, unknown>;
    const format: JsonSchemaFormat = { type: "json_schema", json_schema: { name: config?.name ?? "answer", schema: jsonSchema } };
    const parse = RunnableLambda.from((m: AIMessageChunk): T => {
      const value: unknown = JSON.parse(typeof m.content === "string" ? m.content : "");
      return parser ? parser.parse(value) : (value as T);
    });
    return this.withConfig({ response_format: format }).pipe(parse);
  }

  async _generate(messages: BaseMessage[], options: this["ParsedCallOptions"]): Promise<ChatResult> {
    const shared = await this.models.acquire(this.config, this.where);
    const held = heldOf(options);
    const history = toChatHistory(messages, held?.kind === "tools" ? { tools: held.tools } : held ? { jsonSchema: held.schema } : undefined);
    const gbnf = held?.kind === "tools" ? toolCallSchema(held.tools) : held ? toGbnfSchema(held.schema, "response_format") : undefined;
    const grammar = gbnf ? await shared.grammarFor(gbnf) : undefined;
    const inputTokens = promptTokens(shared, history);
    const maxTokens = this.outputRoom(inputTokens);
    const generated = await shared.withSequence((sequence) => this.complete({ shared, sequence, history, grammar, maxTokens }, options));
    const message = answerOf(generated, held, inputTokens, this.config.model);
    return { generations: [{ text: typeof message.content === "string" ? message.content : "", message }], llmOutput: { tokenUsage: message.usage_metadata } };
  }

  /**
   * The tokens the answer may take: maxOutputTokens, or the rest of the context when it is null. A prompt that
   * leaves less is refused as a server refuses it (ContextOverflowError, src/llm/llm-error.ts), never shortened
   * by dropping earlier turns (node-llama-cpp's context shift).
   */
  private outputRoom(inputTokens: number): number {
    const { contextSize, maxOutputTokens } = this.config;
    if (inputTokens + (maxOutputTokens ?? 1) <= contextSize) return maxOutputTokens ?? contextSize - inputTokens;
    throw new ContextOverflowError(
      `${this.where}: the prompt (${inputTokens} tokens)${maxOutputTokens === null ? "" : ` plus maxOutputTokens (${maxOutputTokens})`} is longer than ${this.where}.contextSize (${contextSize}); raise contextSize${maxOutputTokens === null ? "" : " or lower maxOutputTokens"}, or shorten the prompt`,
    );
  }

  private async complete({ shared, sequence, history, grammar, maxTokens }: Completion, options: this["ParsedCallOptions"]): Promise<Generated> {
    // Loaded here, not at import: node-llama-cpp installs process signal handlers when it loads, and a command
    // that runs no embedded model should not load it.
    const { LlamaChat } = await import("node-llama-cpp");
    const chat = new LlamaChat({ contextSequence: sequence, chatWrapper: shared.chatWrapper });
    const before = sequence.tokenMeter.getState();
    const c = this.config;
    try {
      const r = await chat.generateResponse(history, {
        ...(grammar ? { grammar } : {}),
        maxTokens,
        temperature: c.temperature ?? 0,
        ...(c.topP === undefined ? {} : { topP: c.topP }),
        ...(c.seed === undefined ? {} : { seed: c.seed }),
        ...(options.signal ? { signal: options.signal } : {}),
      });
      if (r.metadata.stopReason === "abort") throw new ModelOutputError(`${this.where}: the answer was aborted`);
      return {
        text: r.response,
        thought: r.fullResponse.flatMap((part) => (typeof part !== "string" && part.segmentType === "thought" ? [part.text] : [])).join("\n\n"),
        outputTokens: sequence.tokenMeter.diff(before).usedOutputTokens,
        finish: r.metadata.stopReason === "maxTokens" ? "length" : "stop",
      };
    } finally {
      chat.dispose({ disposeSequence: false });
    }
  }
}
