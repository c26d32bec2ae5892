/** Why an attempt failed and whether another may succeed. */
export interface Failure {
  retryable: boolean;
  reason: string;
  /** The server's Retry-After, in ms. */
  retryAfterMs?: number;
}

export interface RetryEvent {
  /** The attempt that failed, from 1. */
  attempt: number;
  delayMs: number;
  reason: string;
}

export interface RetryOptions {
  maxRetries: number;
  classify: (e: unknown) => Failure;
  giveUp: (cause: unknown, attempts: number) => Error;
  /** Defaults to a real timer. */
  sleep?: (ms: number) => Promise<void>;
  /** Uniform in [0, 1): the jitter. Defaults to Math.random. */
  random?: () => number;
  onRetry?: (event: RetryEvent) => void;
}

const BASE_DELAY_MS = 1000;
const MAX_DELAY_MS = 30_000;

const MAX_RETRY_AFTER_MS = 5 * 60_000;

/** Full jitter (uniform in [0, min(cap, base·2^retry))) spreads clients that failed together; Retry-After is a floor. */
export const backoffMs = (retry: number, random: () => number, retryAfterMs?: number): number => {
  const jittered = random() * Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** retry);
  // A server's Retry-After is honoured up to the cap: a day-long wait is a misconfigured server, not a plan.
  return retryAfterMs === undefined ? jittered : Math.max(Math.min(retryAfterMs, MAX_RETRY_AFTER_MS), jittered);
};

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Runs `attempt` until it succeeds, fails for good, or `maxRetries` retries are spent; then throws `giveUp(...)`.
 * Any client's: `classify` says which of its failures are worth another attempt (`classifyHttpFailure` for the
 * OpenAI SDK's).
 */
export const withRetries = async <T>(attempt: () => Promise<T>, o: RetryOptions): Promise<T> => {
  const { sleep = realSleep, random = Math.random } = o;
  for (let n = 1; ; n++) {
    try {
      return await attempt();
    } catch (e) {
      const failure = o.classify(e);
      if (!failure.retryable || n > o.maxRetries) throw o.giveUp(e, n);
      const delayMs = backoffMs(n - 1, random, failure.retryAfterMs);
      o.onRetry?.({ attempt: n, delayMs, reason: failure.reason });
      await sleep(delayMs);
    }
  }
};

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

/** HTTP status and network errors as the OpenAI SDK (through langchain) throws them. */
export const classifyHttpFailure = (e: unknown): Failure => {
  if (typeof e !== "object" || e === null) return { retryable: false, reason: String(e) };
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
  for (let c: unknown = e; c instanceof Error; c = c.cause) {
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
