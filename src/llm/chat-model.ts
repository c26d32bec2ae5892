import type { BaseChatModel } from "@langchain/core/language_models/chat_models";

/**
 * The model port (docs/spec/style.md §2): agents talk to this interface only; the OpenAI-compatible adapter
 * (langchain's ChatOpenAI) lives beside it in src/llm and nowhere else.
 */
export interface ToolCall {
  id: string;
  name: string;
  /** Parsed arguments; `{}` when they were not valid JSON (then `argsError` says why). */
  args: unknown;
  rawArgs: string;
  argsError?: string;
}

/** The media a user message may carry: still frames as PNG or JPEG, a clip as MP4 (servers that take `video_url`). */
export const MEDIA_MIMES = ["image/png", "image/jpeg", "video/mp4"] as const;
export type MediaMime = (typeof MEDIA_MIMES)[number];

/**
 * An image or a video inside a user message (src/llm/content-parts.ts). `base64` goes to the wire only: the
 * response-cache key and the audit log carry `sha256`, `bytes` and `mime` instead, so a changed frame changes the
 * key and a log line stays small however many frames were sent.
 */
export interface MediaPart {
  type: "image" | "video";
  mime: MediaMime;
  /** sha256 (hex) of the bytes. */
  sha256: string;
  bytes: number;
  base64: string;
}

export type ContentPart = { type: "text"; text: string } | MediaPart;

export type Message =
  | { role: "system"; content: string }
  /** `parts`, when present, is the message in order, media included; `content` is then the text of its text parts. */
  | { role: "user"; content: string; parts?: ContentPart[] }
  | { role: "assistant"; content: string; toolCalls: ToolCall[] }
  | { role: "tool"; content: string; toolCallId: string; name: string };

/** A tool as the model sees it: name, description and JSON schema of the arguments. */
export interface ToolSpec {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

export interface Usage {
  input: number;
  output: number;
  /** Input tokens served from the provider's prompt cache. */
  cached: number;
  /** The server reported no usage: input and output are hexa's estimate (token-estimate.ts), not the bill. */
  estimated?: boolean;
}

export interface AssistantTurn {
  /** Text before (or instead of) the tool calls: the thought, without any `<think>` block. */
  text: string;
  toolCalls: ToolCall[];
  /**
   * The model's reasoning, from `<think>…</think>` in the content or a `reasoning_content` / `reasoning` field:
   * kept for the record, never sent back to the model.
   */
  reasoning?: string;
  /**
   * What was wrong with the answer as a whole, for the model and the record: cut at the output cap
   * (finish_reason "length"), or a tool call written as text that could not be read.
   */
  problem?: string;
  usage: Usage;
  /** The model name the server reported. */
  model: string;
  latencyMs: number;
  /** Served from hexa's response cache, no HTTP call made. */
  fromCache: boolean;
}

/**
 * A JSON answer asked for by schema (with no tools): an adapter that can, has the server hold the answer to it
 * (src/llm/structured-output.ts); one that cannot ignores it, and the prompt's own request for JSON stands.
 */
export interface OutputRequest {
  /** Names the schema or the forced tool on the wire: letters, digits, `_` and `-`. */
  name: string;
  /** JSON Schema of the answer. */
  schema: Record<string, unknown>;
}

export interface ChatModel {
  /** The configured model name (the server may report a more specific one per call). */
  readonly name: string;
  /** The same model as a langchain chat model, when it is one (src/llm/openai-chat.ts): the actor's agent drives it directly. */
  readonly langchain?: BaseChatModel;
  invoke(messages: Message[], tools: ToolSpec[], output?: OutputRequest): Promise<AssistantTurn>;
}
