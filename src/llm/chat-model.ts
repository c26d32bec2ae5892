/**
 * hexa's record form of a model exchange (docs/ARCHITECTURE.md §5.1): the request as the audit log, the response
 * cache and the spend gate key and log it, and hexa's reading of the answer. Callers never build it: they ask a
 * role's langchain model (src/llm/ask.ts), which turns its messages into this form at its one seam, the wire.
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

/** One exchange in the record form: the request in, hexa's reading of the answer out. */
export type Answer = (messages: Message[], tools: ToolSpec[], output?: OutputRequest) => Promise<AssistantTurn>;

/**
 * The seam inside a role's model where each exchange is in the record form (src/llm/openai-chat.ts): the audit
 * log, response cache and spend gate wrap it, and an endpoint, an embedded model or a replay answers at its centre.
 */
export interface Wire {
  /** The configured model name the exchange is keyed by (the server may report a more specific one per call). */
  readonly name: string;
  invoke: Answer;
}
