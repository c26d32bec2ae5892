import { createHash } from "node:crypto";
import { HumanMessage, type ContentBlock, type MessageContent } from "@langchain/core/messages";
import { MEDIA_MIMES, type ContentPart, type MediaMime, type MediaPart, type Message } from "./chat-model.ts";

/** A media part of these bytes. */
export const mediaPart = (data: Uint8Array, mime: MediaMime): MediaPart => ({
  type: mime.startsWith("video/") ? "video" : "image",
  mime,
  sha256: createHash("sha256").update(data).digest("hex"),
  bytes: data.byteLength,
  base64: Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString("base64"),
});

const dataUrl = (p: MediaPart) => `data:${p.mime};base64,${p.base64}`;

/** A part as OpenAI's chat-completions API takes it: `text`, `image_url` or `video_url` (vLLM's extension). */
const wireBlock = (p: ContentPart): ContentBlock => {
  if (p.type === "text") return { type: "text", text: p.text };
  return p.type === "image" ? { type: "image_url", image_url: { url: dataUrl(p) } } : { type: "video_url", video_url: { url: dataUrl(p) } };
};

const DATA_URL = /^data:([a-z]+\/[a-z0-9.+-]+);base64,([A-Za-z0-9+/=]*)$/;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** The URL of an `image_url` / `video_url` block, or undefined for any other block. */
const mediaUrlOf = (block: unknown): string | undefined => {
  if (!isRecord(block) || (block.type !== "image_url" && block.type !== "video_url")) return undefined;
  const inner = block[block.type];
  const url = isRecord(inner) ? inner.url : inner;
  return typeof url === "string" ? url : "";
};

/** Whether a langchain message content carries an image or a video (then it is not flattened to its text). */
export const hasMedia = (content: MessageContent): boolean => typeof content !== "string" && content.some((b) => mediaUrlOf(b) !== undefined);

/**
 * The parts of a langchain content array made by `wireBlock`. Only inline data URLs of the MEDIA_MIMES are taken:
 * hexa never sends a URL a server would fetch.
 */
export const partsOfContent = (content: Exclude<MessageContent, string>): ContentPart[] =>
  content.flatMap((block): ContentPart[] => {
    const url = mediaUrlOf(block);
    if (url === undefined) return isRecord(block) && block.type === "text" && typeof block.text === "string" ? [{ type: "text", text: block.text }] : [];
    const m = DATA_URL.exec(url);
    const mime = MEDIA_MIMES.find((k) => k === m?.[1]);
    if (!m || !mime) throw new Error(`a media part must be an inline data URL of ${MEDIA_MIMES.join(", ")} (got ${JSON.stringify(url.slice(0, 40))})`);
    return [mediaPart(Buffer.from(m[2]!, "base64"), mime)];
  });

/**
 * The messages as keys and log lines are made of them: each media part without its bytes (its sha256, size and
 * mime stand for it). Messages without parts are the same objects, so text-only keys are unchanged.
 */
export const recordedMessages = (messages: readonly Message[]): unknown[] =>
  messages.map((m) =>
    m.role === "user" && m.parts
      ? { ...m, parts: m.parts.map((p) => (p.type === "text" ? p : { type: p.type, mime: p.mime, sha256: p.sha256, bytes: p.bytes })) }
      : m,
  );

/** A user message of ordered parts as langchain carries it (the wire's content blocks). */
export const humanWithParts = (parts: readonly ContentPart[]): HumanMessage => new HumanMessage({ content: parts.map(wireBlock) });
