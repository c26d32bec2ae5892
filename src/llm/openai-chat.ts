import type { CallbackManagerForLLMRun } from "@langchain/core/callbacks/manager";
import type { BaseLanguageModelInput, StructuredOutputMethodOptions } from "@langchain/core/language_models/base";
import type { BindToolsInput } from "@langchain/core/language_models/chat_models";
import type { AIMessage, AIMessageChunk, BaseMessage } from "@langchain/core/messages";
import type { ChatGeneration, ChatResult } from "@langchain/core/outputs";
import { RunnableLambda, type Runnable } from "@langchain/core/runnables";
import { convertToOpenAITool } from "@langchain/core/utils/function_calling";
import { ChatOpenAI, type ChatOpenAICallOptions, type ChatOpenAIFields } from "@langchain/openai";
import { z } from "zod";
import { answerMessage, answerOf, toRecordMessages } from "./agent-messages.ts";
import { readAnswer, type Notice } from "./answer-read.ts";
import type { Answer, AssistantTurn, Message, OutputRequest, ToolSpec, Wire } from "./chat-model.ts";
import { ModelConfig, type ResolvedModelConfig } from "./config.ts";
import { ModelOutputError } from "../errors.ts";
import { hasMedia } from "./content-parts.ts";
import { Semaphore, sharedEndpointLimits } from "./endpoint-limits.ts";
import { fromLangchainAnswer, toOpenAITool, type LangchainAnswer } from "./langchain-messages.ts";
import { ContextOverflow, isContextOverflow, LlmError } from "./llm-error.ts";
import { type OpenAIChatDeps, chatFields, overflowFix, timeoutError } from "./openai-client.ts";
import { classifyHttpFailure, withRetries } from "./retry.ts";
import { answerSchema, boundOutput, callWithOutput, type OutputOptions } from "./structured-output.ts";
import { readStructured } from "./structured-read.ts";
import { judgeAnswer, recordingWire, type WireRecord } from "./wire-check.ts";

export type { OpenAIChatDeps } from "./openai-client.ts";

/** A langchain tool that knows the exact spec the model is sent (a family's tool, schema as the family wrote it). */
export interface SpecTool {
  readonly toolSpec: ToolSpec;
}

const hasToolSpec = (t: unknown): t is SpecTool => typeof t === "object" && t !== null && "toolSpec" in t;

/** A bound tool in OpenAI's form: a family's tool exactly as it wrote its spec, any other as langchain converts it. */
const openAIToolOf = (tool: BindToolsInput) => (hasToolSpec(tool) ? toOpenAITool(tool.toolSpec) : tool);

/** A bound tool as the request records it (cache key, audit log): name, description and parameters. */
const specOf = (tool: unknown): ToolSpec => {
  const { function: f } = convertToOpenAITool(tool as BindToolsInput);
  return { name: f.name, description: f.description ?? "", parameters: (f.parameters ?? {}) as Record<string, unknown> };
};

/**
 * What a role's model object shares across its bound copies (`bindTools` and `withConfig` make new instances):
 * the config, the endpoint's slot, the layers around each exchange and who hears each answer.
 */
export interface HexaParts {
  config: ResolvedModelConfig;
  /** Config path named in errors, e.g. "llm.actor". */
  where: string;
  deps: OpenAIChatDeps;
  slot: Semaphore;
  notice: (n: Notice) => void;
  /**
   * The audit log, response cache and spend gate around one exchange, in that order (src/llm/role-model.ts);
   * they see the request in the record form (src/llm/chat-model.ts), which their keys and lines are made of.
   * `requestMessages` are the request's own langchain messages, for a model answered in this process (role-model.ts).
   */
  layers: (wire: Wire, requestMessages: readonly BaseMessage[]) => Wire;
  /** Told every answered call, cache hits and failed structured-output attempts included (metering). */
  listeners: ReadonlyArray<(turn: AssistantTurn) => void>;
}

/** Tells each kind of server quirk once (answer-read.ts). */
export const oncePerKind = (onNotice: ((message: string) => void) | undefined) => {
  const told = new Set<Notice["kind"]>();
  return (n: Notice) => {
    if (told.has(n.kind)) return;
    told.add(n.kind);
    onNotice?.(n.message);
  };
};

/** The parts of a role's model with no layers and no listeners: the endpoint client as it is. */
export const bareParts = (config: ResolvedModelConfig, deps: OpenAIChatDeps = {}): HexaParts => {
  const where = deps.where ?? "llm";
  return {
    config,
    where,
    deps,
    slot: (deps.limits ?? sharedEndpointLimits).for(config.baseURL, config.concurrency, where),
    notice: oncePerKind(deps.onNotice),
    layers: (wire) => wire,
    listeners: [],
  };
};

interface Exchanged {
  answer: LangchainAnswer;
  latencyMs: number;
  wire: WireRecord | undefined;
}

/**
 * A role's model: langchain's ChatOpenAI (chat-completions API), with hexa's handling of each call in its
 * `_generate`, the one place every call passes: the audit log, response cache and spend gate around the exchange,
 * retries (ChatOpenAI's own are off so that Retry-After, the backoff clock and the per-endpoint limit are in one
 * place), one deadline per attempt, the wire checks, the structured-output strategy, and the reading of server
 * quirks (answer-read.ts). The answer is an AIMessage with its tool calls, usage and reported model, and hexa's
 * whole reading kept beside them (agent-messages.ts).
 */
export class HexaChatOpenAI extends ChatOpenAI<ChatOpenAICallOptions> {
  // Every call goes through `_generate` (never langchain's streaming path around it); a streaming config streams inside it.
  override disableStreaming = true;

  constructor(
    readonly hexa: HexaParts,
    fields: ChatOpenAIFields = chatFields(hexa.config, hexa.where),
  ) {
    super(fields);
  }

  /** The same model whose answers are also told to `listener`. */
  listening(listener: (turn: AssistantTurn) => void): HexaChatOpenAI {
    const copy = new HexaChatOpenAI({ ...this.hexa, listeners: [...this.hexa.listeners, listener] }, this.fields);
    copy.defaultOptions = this.defaultOptions;
    return copy;
  }

  override withConfig(config: Partial<ChatOpenAICallOptions>): HexaChatOpenAI {
    const copy = new HexaChatOpenAI(this.hexa, this.fields);
    copy.defaultOptions = { ...this.defaultOptions, ...config };
    return copy;
  }

  /** The copy bound last: an agent binds the same tools before every call, and each copy is a new ChatOpenAI. */
  private lastBound?: { tools: readonly BindToolsInput[]; kwargs: string; model: HexaChatOpenAI };

  /** A family's tools are sent with the spec it wrote; the tool choice is the config's unless the caller names one. */
  override bindTools(tools: BindToolsInput[], kwargs?: Partial<ChatOpenAICallOptions>): HexaChatOpenAI {
    const key = JSON.stringify(kwargs ?? {});
    const last = this.lastBound;
    if (last && last.kwargs === key && last.tools.length === tools.length && last.tools.every((t, i) => t === tools[i])) return last.model;
    const choice = kwargs?.tool_choice ?? this.hexa.config.toolChoice;
    const model = super.bindTools(tools.map(openAIToolOf), { ...kwargs, tool_choice: choice }) as HexaChatOpenAI;
    this.lastBound = { tools: [...tools], kwargs: key, model };
    return model;
  }

  /**
   * Langchain's structured output, its schema bound as hexa writes it (a zod schema as the JSON Schema of what the
   * model may send, defaults optional) and sent the way the server takes it (`_generate`); the answer is read by
   * hexa (a forced tool's arguments or the text, fenced or not, src/llm/structured-output.ts) and checked by the
   * zod schema: `parsed` is null, or without `includeRaw` a ModelOutputError names what is wrong.
   */
  // biome-ignore lint/suspicious/noExplicitAny: the signature of BaseChatModel's overloads, which this overrides
  override withStructuredOutput<T extends Record<string, any>>(
    schema: unknown,
    config?: StructuredOutputMethodOptions<boolean>,
  ): Runnable<BaseLanguageModelInput, T> {
    const json = schema instanceof z.ZodType ? answerSchema(schema) : (schema as Record<string, unknown>);
    const structured = super.withStructuredOutput(json, { ...config, includeRaw: true });
    const read = RunnableLambda.from(({ raw }: { raw: BaseMessage }) => {
      const answer = readStructured(answerOf(raw as AIMessage, this.hexa.config.model), schema);
      if (config?.includeRaw) return { raw, parsed: "value" in answer ? answer.value : null };
      if ("problem" in answer) throw new ModelOutputError(answer.problem);
      return answer.value;
    });
    return structured.pipe(read) as Runnable<BaseLanguageModelInput, T>;
  }

  override async _generate(given: BaseMessage[], options: this["ParsedCallOptions"], runManager?: CallbackManagerForLLMRun): Promise<ChatResult> {
    const messages = given.map(withTextContent);
    const { output, rest } = boundOutput(options);
    const tools = (rest.tools ?? []).map(specOf);
    const wire: Wire = {
      name: this.hexa.config.model,
      invoke: (recorded, _tools, outputAsked) => this.answer(messages, rest, runManager, { messages: recorded, tools, output: outputAsked }),
    };
    const turn = await this.hexa.layers(wire, messages).invoke(toRecordMessages(messages), tools, output);
    for (const listener of this.hexa.listeners) listener(turn);
    return { generations: [{ text: turn.text, message: answerMessage(turn) }] };
  }

  /** The endpoint's answer, retried, structured as asked, and read (answer-read.ts). */
  private async answer(
    messages: BaseMessage[],
    options: this["ParsedCallOptions"],
    runManager: CallbackManagerForLLMRun | undefined,
    request: { messages: Message[]; tools: ToolSpec[]; output: OutputRequest | undefined },
  ): Promise<AssistantTurn> {
    const { config, where, deps, slot } = this.hexa;
    const { model, baseURL } = config;
    const call = (asked?: OutputOptions) =>
      withRetries(() => slot.run(() => this.exchangeOnce(messages, { ...options, ...asked }, runManager)), {
        maxRetries: config.maxRetries,
        classify: classifyHttpFailure,
        giveUp: (cause, attempts) =>
          isContextOverflow(cause)
            ? new ContextOverflow(baseURL, model, attempts, cause, overflowFix(where, config.maxOutputTokens))
            : new LlmError(baseURL, model, attempts, cause),
        ...(deps.sleep ? { sleep: deps.sleep } : {}),
        ...(deps.random ? { random: deps.random } : {}),
        ...(deps.onRetry ? { onRetry: deps.onRetry } : {}),
      });
    const { output } = request;
    // A schema for the answer applies to calls without tools only: the actor's tool calls are its answer.
    const { answer, latencyMs, wire } =
      output && request.tools.length === 0
        ? await callWithOutput({
            mode: config.structuredOutput,
            baseURL,
            model,
            where,
            output,
            call,
            ...(deps.outputMemory ? { memory: deps.outputMemory } : {}),
          })
        : await call();
    const turn = readAnswer(fromLangchainAnswer(answer, model), {
      where,
      messages: request.messages,
      tools: request.tools,
      maxOutputTokens: config.maxOutputTokens,
      wire,
      notice: this.hexa.notice,
    });
    return { ...turn, latencyMs, fromCache: false };
  }

  /** ChatOpenAI's answer to one request, streamed and gathered when the config streams. */
  private async wireAnswer(messages: BaseMessage[], options: this["ParsedCallOptions"], runManager?: CallbackManagerForLLMRun): Promise<LangchainAnswer> {
    if (!this.hexa.config.streaming) {
      const { generations } = await super._generate(messages, options, runManager);
      return withGenerationInfo(generations[0]!);
    }
    let answer: AIMessageChunk | undefined;
    for await (const chunk of super._streamResponseChunks(messages, options, runManager)) {
      options.signal?.throwIfAborted();
      const message = withGenerationInfo(chunk) as AIMessageChunk;
      answer = answer ? answer.concat(message) : message;
    }
    // Retried like a dropped connection: the server closed the stream without answering.
    if (!answer) throw Object.assign(new Error("the stream ended before its first chunk"), { code: "ECONNRESET" });
    return answer;
  }

  /** One HTTP exchange under one deadline; the SDK's own timeout stops at the headers, not the streamed body. */
  private async exchangeOnce(messages: BaseMessage[], options: this["ParsedCallOptions"], runManager?: CallbackManagerForLLMRun): Promise<Exchanged> {
    const { config, where, slot } = this.hexa;
    const { timeoutMs, streaming } = config;
    const now = this.hexa.deps.now ?? (() => performance.now());
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), timeoutMs);
    const started = now();
    try {
      return await recordingWire(async (wire) => {
        let answer: LangchainAnswer;
        try {
          answer = await this.wireAnswer(messages, { ...options, signal: deadline.signal }, runManager);
        } catch (e) {
          if (deadline.signal.aborted || typeof (e as { status?: unknown }).status === "number") throw e;
          // A dropped connection mid-stream stays one; any other failure on a 200 is the answer's fault.
          throw judgeAnswer(wire, streaming, classifyHttpFailure(e).retryable ? undefined : e) ?? e;
        }
        if (deadline.signal.aborted) throw timeoutError(timeoutMs, where, slot.size);
        const verdict = judgeAnswer(wire, streaming);
        if (verdict) throw verdict;
        return { answer, latencyMs: now() - started, wire: wire.at(-1) };
      });
    } catch (e) {
      throw deadline.signal.aborted ? timeoutError(timeoutMs, where, slot.size) : e;
    } finally {
      clearTimeout(timer);
    }
  }
}

/**
 * The message with its content as one text, as the record form carries it (the cache key and audit line are
 * made of them): a system prompt that a middleware built of content blocks goes to the wire as the text it reads as.
 * A user message with images or a video keeps its parts in order (src/llm/content-parts.ts).
 */
const withTextContent = (m: BaseMessage): BaseMessage => {
  if (typeof m.content === "string" || hasMedia(m.content)) return m;
  const Kind = m.constructor as new (fields: Record<string, unknown>) => BaseMessage;
  return new Kind({ ...m, content: m.text });
};

/** The message of a generation with its generation info in its response metadata, as langchain's invoke gives it. */
const withGenerationInfo = (g: Pick<ChatGeneration, "message" | "generationInfo">) => {
  g.message.response_metadata = { ...g.generationInfo, ...g.message.response_metadata };
  return g.message;
};

/** A role's model with no layers: the endpoint client as it is. */
export const createOpenAIChat = (config: ResolvedModelConfig, deps: OpenAIChatDeps = {}): HexaChatOpenAI => new HexaChatOpenAI(bareParts(config, deps));

/**
 * The parts of a model answered in this process instead of by an endpoint: no connection, no limit; each request
 * is answered by `answerFor(requestMessages)`, given its langchain messages.
 */
export const answeredParts = (name: string, answerFor: (requestMessages: readonly BaseMessage[]) => Answer): HexaParts => ({
  config: { ...ModelConfig.parse({ model: name }), baseURL: "http://answered.invalid/v1", apiKey: "none" },
  where: "llm",
  deps: {},
  slot: new Semaphore(Number.POSITIVE_INFINITY),
  notice: () => {},
  layers: (_endpoint, requestMessages) => ({ name, invoke: answerFor(requestMessages) }),
  listeners: [],
});

/**
 * A model answered by `answer` instead of an endpoint (a replay of a recorded run, a scripted model in tests):
 * the same model object, which never opens a connection; `answer` takes the request in the record form.
 */
export const answeredBy = (name: string, answer: Answer): HexaChatOpenAI => new HexaChatOpenAI(answeredParts(name, () => answer));
