import { AIMessage, type AIMessageChunk, type BaseMessage } from "@langchain/core/messages";
import { makeInvalidToolCall, parseToolCall } from "@langchain/core/output_parsers/openai_tools";
import { ChatOpenAI, ChatOpenAICompletions, type OpenAIClient, wrapOpenAIClientError } from "@langchain/openai";
import type { ChatModel } from "./chat-model.ts";
import { readAnswer, type Notice } from "./answer-read.ts";
import type { ResolvedModelConfig } from "./config.ts";
import { sharedEndpointLimits, type EndpointLimits } from "./endpoint-limits.ts";
import { toAgentMessages } from "./agent-messages.ts";
import { fromLangchainAnswer, toOpenAITool, type LangchainAnswer } from "./langchain-messages.ts";
import { ContextOverflow, isContextOverflow, LlmError } from "./llm-error.ts";
import { shapeRequest } from "./request-shape.ts";
import { classifyHttpFailure, withRetries, type RetryEvent } from "./retry.ts";
import { callWithOutput, type OutputMemory, type OutputOptions } from "./structured-output.ts";
import { checkingFetch, judgeAnswer, recordingWire } from "./wire-check.ts";

/** Time, randomness and shared state, injectable so tests run fast; each defaults to the real thing. */
export interface OpenAIChatDeps {
  sleep?: (ms: number) => Promise<void>;
  /** Uniform in [0, 1): the backoff jitter. */
  random?: () => number;
  /** Milliseconds, for latency. */
  now?: () => number;
  limits?: EndpointLimits;
  onRetry?: (event: RetryEvent) => void;
  /** Config path named in errors, e.g. "llm.actor". */
  where?: string;
  /** A server quirk hexa handled or could not: told once per kind for this model (answer-read.ts). */
  onNotice?: (message: string) => void;
  /** Which way of asking for JSON each endpoint accepted; defaults to the process-wide memory. */
  outputMemory?: OutputMemory;
}

/** A timeout names the two usual causes: a slow model, or a server that queues requests beyond its parallel slots. */
const timeoutError = (ms: number, where: string, concurrency: number) =>
  Object.assign(
    new Error(
      `no answer within ${ms} ms; raise ${where}.timeoutMs, or, if the server serves fewer requests at a time than ${where}.concurrency (${concurrency}; llama.cpp -np, OLLAMA_NUM_PARALLEL), lower it to that number`,
    ),
    { name: "TimeoutError" },
  );

const overflowFix = (where: string, maxOutput: number | null) =>
  `the request (prompt${maxOutput === null ? "" : ` plus ${where}.maxOutputTokens ${maxOutput}`}) is longer than the context the server gives the model: lower ${where}.maxOutputTokens${where === "llm.actor" ? " or actor.maxRequestChars" : ""}, or serve the model with a longer context (vLLM --max-model-len, llama.cpp -c, Ollama OLLAMA_CONTEXT_LENGTH)`;

const collect = async (stream: AsyncIterable<AIMessageChunk>): Promise<AIMessageChunk> => {
  let answer: AIMessageChunk | undefined;
  for await (const chunk of stream) answer = answer ? answer.concat(chunk) : chunk;
  // Retried like a dropped connection: the server closed the stream without answering.
  if (!answer) throw Object.assign(new Error("the stream ended before its first chunk"), { code: "ECONNRESET" });
  return answer;
};

type ToWireAnswer = ChatOpenAICompletions["_convertCompletionsMessageToBaseMessage"];

/** A wire tool call as langchain reads it: parsed, or kept as invalid with the parser's reason. */
const readCall = (call: Parameters<typeof parseToolCall>[0]) => {
  try {
    return { valid: parseToolCall(call, { returnId: true }) };
  } catch (e) {
    return { invalid: makeInvalidToolCall(call, (e as Error).message) };
  }
};

/** Where an answer's wire calls wait, when none of them parsed, until langchain has rebuilt the message. */
const HELD_CALLS = "hexa_held_tool_calls";

/**
 * The chat-completions client with one change: an answer whose every tool call has unreadable arguments (a model's
 * malformed JSON) is built without @langchain/core's "New LangChain packages are available … Please upgrade"
 * warning, which the AIMessage constructor prints for a message with wire calls and no parsed ones. The answer is
 * the one langchain builds: wire calls in `additional_kwargs.tool_calls` (where hexa reads the exact argument
 * text), parsed and invalid calls beside them.
 */
class QuietCompletions extends ChatOpenAICompletions {
  override _convertCompletionsMessageToBaseMessage(...[message, rawResponse]: Parameters<ToWireAnswer>): ReturnType<ToWireAnswer> {
    const wire = message.tool_calls ?? [];
    const answer = super._convertCompletionsMessageToBaseMessage({ ...message, tool_calls: undefined }, rawResponse);
    if (wire.length === 0 || !AIMessage.isInstance(answer)) return answer;
    const read = wire.map((call) => readCall(call as Parameters<typeof parseToolCall>[0]));
    answer.tool_calls = read.flatMap((r) => (r.valid ? [r.valid] : []));
    answer.invalid_tool_calls = read.flatMap((r) => (r.invalid ? [r.invalid] : []));
    answer.additional_kwargs[answer.tool_calls.length > 0 ? "tool_calls" : HELD_CALLS] = wire as AIMessage["additional_kwargs"]["tool_calls"];
    return answer;
  }

  /**
   * A json_schema request is sent with the SDK's `create`, as every other request is, not its `parse`, which
   * throws on an answer that is not bare JSON (a fenced block, prose around it) or that hit the token cap, where
   * hexa wants the text, to validate it with zod and retry once (docs/spec/method.md §1.4).
   */
  override completionWithRetry(
    request: OpenAIClient.Chat.ChatCompletionCreateParamsStreaming,
    o?: OpenAIClient.RequestOptions,
  ): Promise<AsyncIterable<OpenAIClient.Chat.Completions.ChatCompletionChunk>>;
  override completionWithRetry(
    request: OpenAIClient.Chat.ChatCompletionCreateParamsNonStreaming,
    o?: OpenAIClient.RequestOptions,
  ): Promise<OpenAIClient.Chat.Completions.ChatCompletion>;
  override async completionWithRetry(request: OpenAIClient.Chat.ChatCompletionCreateParams, o?: OpenAIClient.RequestOptions): Promise<unknown> {
    if (request.stream || request.response_format?.type !== "json_schema")
      return super.completionWithRetry(request as OpenAIClient.Chat.ChatCompletionCreateParamsNonStreaming, o);
    const { maxRetries: _retries, ...sdk } = o ?? {};
    const options = this._getClientOptions(sdk);
    try {
      return await this.client.chat.completions.create(request, options);
    } catch (e) {
      throw wrapOpenAIClientError(e);
    }
  }

  override async _generate(...args: Parameters<ChatOpenAICompletions["_generate"]>) {
    const result = await super._generate(...args);
    for (const { message } of result.generations) {
      const { [HELD_CALLS]: held, ...rest } = message.additional_kwargs;
      if (held !== undefined) message.additional_kwargs = { ...rest, tool_calls: held as AIMessage["additional_kwargs"]["tool_calls"] };
    }
    return result;
  }
}

/** langchain's client for the config's endpoint and model, its own retries off; `where` named in its refusals. */
const chatClient = (config: ResolvedModelConfig, where: string): ChatOpenAI => {
  const bounded = checkingFetch(where);
  const fields = {
    model: config.model,
    apiKey: config.apiKey,
    // Our fetch shapes each request as the config asks, bounds each answer's size by the request's output cap,
    // and records each answer's status and first bytes, so a malformed 200 is named and retried. Options left
    // unset the SDK would fill from the environment (OPENAI_ORG_ID, OPENAI_PROJECT_ID, OPENAI_ADMIN_KEY): a
    // request carries only what the config says.
    configuration: {
      baseURL: config.baseURL,
      organization: null,
      project: null,
      adminAPIKey: null,
      fetch: (input: string | URL | Request, init?: RequestInit) => bounded(input, shapeRequest(init, config)),
    },
    // undefined sends no temperature; -1 sends no max_tokens (langchain's convention).
    temperature: config.temperature ?? undefined,
    maxTokens: config.maxOutputTokens ?? -1,
    maxRetries: 0,
    streaming: config.streaming,
    streamUsage: true,
  };
  return new ChatOpenAI({ ...fields, completions: new QuietCompletions(fields) });
};

/** Tells each kind of server quirk once (answer-read.ts). */
const oncePerKind = (onNotice: ((message: string) => void) | undefined) => {
  const told = new Set<Notice["kind"]>();
  return (n: Notice) => {
    if (told.has(n.kind)) return;
    told.add(n.kind);
    onNotice?.(n.message);
  };
};

interface AttemptContext {
  client: ChatOpenAI;
  config: ResolvedModelConfig;
  where: string;
  now: () => number;
  /** The endpoint's parallel slots, named in a timeout's message. */
  concurrency: number;
}

/** One HTTP exchange under one deadline; the SDK's own timeout stops at the headers, not the streamed body. */
const exchangeOnce = ({ client, config, where, now, concurrency }: AttemptContext) => {
  const { timeoutMs, streaming } = config;
  return async (messages: BaseMessage[], tools: ReturnType<typeof toOpenAITool>[], asked: OutputOptions = {}) => {
    // bindTools([]) would still send tool_choice, which the API rejects without tools.
    const runnable = tools.length > 0 ? client.bindTools(tools, { tool_choice: config.toolChoice }) : client.withConfig(asked);
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), timeoutMs);
    const started = now();
    try {
      return await recordingWire(async (wire) => {
        let answer: LangchainAnswer;
        try {
          answer = streaming
            ? await collect(await runnable.stream(messages, { signal: deadline.signal }))
            : await runnable.invoke(messages, { signal: deadline.signal });
        } catch (e) {
          if (deadline.signal.aborted || typeof (e as { status?: unknown }).status === "number") throw e;
          // A dropped connection mid-stream stays one; any other failure on a 200 is the answer's fault.
          throw judgeAnswer(wire, streaming, classifyHttpFailure(e).retryable ? undefined : e) ?? e;
        }
        if (deadline.signal.aborted) throw timeoutError(timeoutMs, where, concurrency);
        const verdict = judgeAnswer(wire, streaming);
        if (verdict) throw verdict;
        return { answer, latencyMs: now() - started, wire: wire.at(-1) };
      });
    } catch (e) {
      throw deadline.signal.aborted ? timeoutError(timeoutMs, where, concurrency) : e;
    } finally {
      clearTimeout(timer);
    }
  };
};

/**
 * The ChatModel port on langchain's ChatOpenAI (chat-completions API). Retries are ours, not langchain's: its
 * own are off so that Retry-After, the backoff clock and the per-endpoint limit are all in one place.
 */
export const createOpenAIChat = (config: ResolvedModelConfig, deps: OpenAIChatDeps = {}): ChatModel => {
  const { model, baseURL } = config;
  const where = deps.where ?? "llm";
  const now = deps.now ?? (() => performance.now());
  const slot = (deps.limits ?? sharedEndpointLimits).for(baseURL, config.concurrency, where);
  const attempt = exchangeOnce({ client: chatClient(config, where), config, where, now, concurrency: slot.size });
  const notice = oncePerKind(deps.onNotice);

  return {
    name: model,
    invoke: async (messages, tools, output) => {
      const lcMessages = toAgentMessages(messages);
      const lcTools = tools.map(toOpenAITool);
      const call = (asked?: OutputOptions) =>
        withRetries(() => slot.run(() => attempt(lcMessages, lcTools, asked)), {
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
      // A schema for the answer applies to calls without tools only: the actor's tool calls are its answer.
      const { answer, latencyMs, wire } =
        output && tools.length === 0
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
      const turn = readAnswer(fromLangchainAnswer(answer, model), { where, messages, tools, maxOutputTokens: config.maxOutputTokens, wire, notice });
      return { ...turn, latencyMs, fromCache: false };
    },
  };
};
