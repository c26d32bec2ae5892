import { describe, expect, it } from "vitest";
import { backoffMs, type Failure, type RetryEvent, withRetries } from "./retry.ts";

/** An attempt that fails with each of `errors` in turn, then answers "ok". */
const failing = (errors: unknown[], log: string[] = []) => {
  let n = 0;
  return async () => {
    log.push("attempt");
    if (n < errors.length) throw errors[n++];
    return "ok";
  };
};

const transient = (e: unknown): Failure => ({ retryable: e !== "fatal", reason: String(e) });

describe("withRetries", () => {
  it("retries a retryable failure with a doubling backoff, then returns the answer", async () => {
    const sleeps: number[] = [];
    const events: RetryEvent[] = [];
    const answer = await withRetries(failing(["busy", "busy"]), {
      maxRetries: 5,
      classify: transient,
      giveUp: () => new Error("gave up"),
      backoff: { baseMs: 200, capMs: 30_000 },
      random: () => 1,
      sleep: async (ms) => void sleeps.push(ms),
      onRetry: (e) => events.push(e),
    });
    expect(answer).toBe("ok");
    expect(sleeps).toEqual([200, 400]);
    expect(events).toEqual([
      { attempt: 1, delayMs: 200, reason: "busy" },
      { attempt: 2, delayMs: 400, reason: "busy" },
    ]);
  });

  it("gives up at once on a failure that is not retryable, and after maxRetries retries on one that is", async () => {
    const giveUp = (cause: unknown, attempts: number, failure: Failure) => new Error(`${String(cause)} after ${attempts} (${failure.reason})`);
    const o = { maxRetries: 2, classify: transient, giveUp, sleep: async () => {} };
    await expect(withRetries(failing(["busy", "fatal"]), o)).rejects.toThrow("fatal after 2 (fatal)");
    const log: string[] = [];
    await expect(withRetries(failing(["busy", "busy", "busy", "busy"], log), o)).rejects.toThrow("busy after 3 (busy)");
    expect(log).toHaveLength(3);
  });

  it("waits for a failure's recovery after the backoff and before the next attempt", async () => {
    const log: string[] = [];
    const classify = (e: unknown): Failure => ({ ...transient(e), recovery: async () => void log.push("recovery") });
    const sleep = async () => void log.push("sleep");
    expect(await withRetries(failing(["down"], log), { maxRetries: 1, classify, giveUp: () => new Error("gave up"), sleep })).toBe("ok");
    expect(log).toEqual(["attempt", "sleep", "recovery", "attempt"]);

    const broken = (e: unknown): Failure => ({ ...transient(e), recovery: () => Promise.reject(new Error("server gone for good")) });
    await expect(withRetries(failing(["down"]), { maxRetries: 3, classify: broken, giveUp: () => new Error("gave up"), sleep })).rejects.toThrow(
      "server gone for good",
    );
  });
});

describe("backoffMs with a backoff of its own", () => {
  it("starts at its base and stops at its cap", () => {
    expect(backoffMs(0, () => 1, undefined, { baseMs: 200, capMs: 1000 })).toBe(200);
    expect(backoffMs(3, () => 1, undefined, { baseMs: 200, capMs: 1000 })).toBe(1000);
  });
});
