import { AIMessage } from "@langchain/core/messages";
import { makeInvalidToolCall, parseToolCall } from "@langchain/core/output_parsers/openai_tools";
import { ChatOpenAICompletions, type OpenAIClient, wrapOpenAIClientError } from "@langchain/openai";
import type { OutputMemory } from "./structured-output.ts";
import type { ResolvedModelConfig } from "./config.ts";
import type { EndpointLimits } from "./endpoint-limits.ts";
import type { RetryEvent } from "./retry.ts";
import { checkingFetch } from "./wire-check.ts";
import { shapeRequest } from "./request-shape.ts";

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
export const timeoutError = (ms: number, where: string, concurrency: number) =>
  Object.assign(
    new Error(
      `no answer within ${ms} ms; raise ${where}.timeoutMs, or, if the server serves fewer requests at a time than ${where}.concurrency (${concurrency}; llama.cpp -np, OLLAMA_NUM_PARALLEL), lower it to that number`,
    ),
    { name: "TimeoutError" },
  );

export const overflowFix = (where: string, maxOutput: number | null) =>
  `the request (prompt${maxOutput === null ? "" : ` plus ${where}.maxOutputTokens ${maxOutput}`}) is longer than the context the server gives the model: lower ${where}.maxOutputTokens${where === "llm.actor" ? " or actor.maxRequestChars" : ""}, or serve the model with a longer context (vLLM --max-model-len, llama.cpp -c, Ollama OLLAMA_CONTEXT_LENGTH)`;

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

/** ChatOpenAI's fields for the config's endpoint and model, its own retries off; `where` named in its refusals. */
export const chatFields = (config: ResolvedModelConfig, where: string) => {
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
  return { ...fields, completions: new QuietCompletions(fields) };
};
