import type { Failure } from "../util/retry.ts";
import { causesOf } from "../util/error-causes.ts";

// The loop is generic (src/util/retry.ts); what is retryable for a model endpoint is decided here.
export { backoffMs, type Failure, type RetryEvent, withRetries } from "../util/retry.ts";

const TRANSIENT_NETWORK = /ECONNRESET|socket hang up|fetch failed|other side closed|UND_ERR_SOCKET|ETIMEDOUT|EPIPE/i;

const headerOf = (e: object, name: string): string | undefined => {
  const headers = (e as { headers?: unknown }).headers;
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  if (headers && typeof headers === "object") {
    const v = (headers as Record<string, unknown>)[name];
    return typeof v === "string" ? v : undefined;
  }
  return undefined;
};

const retryAfterMsOf = (e: object): number | undefined => {
  const ms = headerOf(e, "retry-after-ms");
  if (ms !== undefined && Number(ms) >= 0) return Number(ms);
  const seconds = headerOf(e, "retry-after");
  if (seconds !== undefined && Number(seconds) >= 0) return Number(seconds) * 1000;
  return undefined;
};

/** An answer cut off for its size (wire-check.ts), however the SDK wrapped it: the server would send it again. */
const tooLargeIn = (e: unknown): Error | undefined => causesOf(e).find((c) => c.name === "AnswerTooLarge");

/** HTTP status and network errors as the OpenAI SDK (through langchain) throws them. */
export const classifyHttpFailure = (e: unknown): Failure => {
  if (typeof e !== "object" || e === null) return { retryable: false, reason: String(e) };
  const tooLarge = tooLargeIn(e);
  if (tooLarge) return { retryable: false, reason: tooLarge.message };
  const status = (e as { status?: unknown }).status;
  if (typeof status === "number") {
    if (status === 429) {
      const retryAfterMs = retryAfterMsOf(e);
      return { retryable: true, reason: "429 rate limited", ...(retryAfterMs === undefined ? {} : { retryAfterMs }) };
    }
    // 408 is the server's own request timeout; other 4xx mean the request itself is wrong.
    if (status === 408 || status >= 500) return { retryable: true, reason: `${status} from server` };
    return { retryable: false, reason: `${status} from server` };
  }
  for (const c of causesOf(e)) {
    // A 200 that is not a chat completion (HTML, {}, null, no choices): the server failing, as with a 5xx.
    if (c.name === "MalformedAnswer") return { retryable: true, reason: c.message.split(";")[0] ?? "malformed answer" };
    if (c.name === "TimeoutError") return { retryable: true, reason: "timeout" };
    const code = (c as { code?: unknown }).code;
    if (TRANSIENT_NETWORK.test(`${c.message} ${typeof code === "string" ? code : ""}`)) {
      return { retryable: true, reason: "connection dropped" };
    }
  }
  return { retryable: false, reason: e instanceof Error ? e.message : String(e) };
};
