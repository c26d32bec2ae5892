import type { Message, ToolCall, ToolSpec } from "./chat-model.ts";

/** Characters per token of English prose and JSON, for estimates only (the bill uses the server's counts). */
export const CHARS_PER_TOKEN = 4;

/** Media parts in a request, for estimates: an image or a clip is priced as IMAGE_TOKENS input tokens. */
const mediaCount = (m: Message): number => (m.role === "user" && m.parts ? m.parts.filter((p) => p.type !== "text").length : 0);

/**
 * Input tokens one image is estimated at when the server reports none: OpenAI's high-detail count for a frame
 * of up to 512 × 512 (85 base + 170 per tile); 480 × 480 frames are one tile.
 */
export const IMAGE_TOKENS = 255;

/** A request's input tokens as hexa estimates them: its messages (tool calls included) and its tools. */
export const estimateInputTokens = (messages: readonly Message[], tools: readonly ToolSpec[]): number => {
  const chars = messages.reduce((n, m) => n + m.content.length + ("toolCalls" in m ? JSON.stringify(m.toolCalls).length : 0), 0) + JSON.stringify(tools).length;
  return Math.ceil(chars / CHARS_PER_TOKEN) + messages.reduce((n, m) => n + mediaCount(m) * IMAGE_TOKENS, 0);
};

/** An answer's output tokens as hexa estimates them: its text, reasoning and call arguments. */
export const estimateOutputTokens = (answer: { text: string; reasoning?: string; toolCalls: readonly ToolCall[] }): number => {
  const chars = answer.text.length + (answer.reasoning?.length ?? 0) + answer.toolCalls.reduce((n, c) => n + c.name.length + c.rawArgs.length, 0);
  return Math.ceil(chars / CHARS_PER_TOKEN);
};
