/** Why an attempt failed and whether another may succeed. */
export interface Failure {
  retryable: boolean;
  reason: string;
  /** The server's Retry-After, in ms. */
  retryAfterMs?: number;
  /** Resolves once another attempt may succeed (a restarted server answers); awaited after the backoff. */
  recovery?: () => Promise<void>;
}

export interface RetryEvent {
  /** The attempt that failed, from 1. */
  attempt: number;
  delayMs: number;
  reason: string;
}

/** The backoff's first step and its cap, in ms; each retry doubles the step. */
export interface Backoff {
  baseMs: number;
  capMs: number;
}

export interface RetryOptions<F extends Failure = Failure> {
  maxRetries: number;
  classify: (e: unknown) => F;
  giveUp: (cause: unknown, attempts: number, failure: F) => Error;
  /** Default: 1 s doubling up to 30 s. */
  backoff?: Backoff;
  /** Default: a timer (tests pass a recorder). */
  sleep?: (ms: number) => Promise<void>;
  /** Uniform in [0, 1): the jitter. Default: Math.random. */
  random?: () => number;
  onRetry?: (event: RetryEvent) => void;
}

const DEFAULT_BACKOFF: Backoff = { baseMs: 1000, capMs: 30_000 };

const MAX_RETRY_AFTER_MS = 5 * 60_000;

const realSleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** Full jitter (uniform in [0, min(cap, base·2^retry))) spreads clients that failed together; Retry-After is a floor. */
export const backoffMs = (retry: number, random: () => number, retryAfterMs?: number, backoff: Backoff = DEFAULT_BACKOFF): number => {
  const jittered = random() * Math.min(backoff.capMs, backoff.baseMs * 2 ** retry);
  // A server's Retry-After is honoured up to the cap: a day-long wait is a misconfigured server, not a plan.
  return retryAfterMs === undefined ? jittered : Math.max(Math.min(retryAfterMs, MAX_RETRY_AFTER_MS), jittered);
};

/** Runs `attempt` until it succeeds, fails for good, or `maxRetries` retries are spent; then throws `giveUp(...)`. */
export const withRetries = async <T, F extends Failure = Failure>(attempt: () => Promise<T>, o: RetryOptions<F>): Promise<T> => {
  for (let n = 1; ; n++) {
    try {
      return await attempt();
    } catch (e) {
      const failure = o.classify(e);
      if (!failure.retryable || n > o.maxRetries) throw o.giveUp(e, n, failure);
      const delayMs = backoffMs(n - 1, o.random ?? Math.random, failure.retryAfterMs, o.backoff);
      o.onRetry?.({ attempt: n, delayMs, reason: failure.reason });
      await (o.sleep ?? realSleep)(delayMs);
      await failure.recovery?.();
    }
  }
};
