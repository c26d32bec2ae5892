import { HumanMessage } from "@langchain/core/messages";
import { afterEach, describe, expect, it } from "vitest";
import { turnOf } from "../../test/support/turn-of.ts";
import { startFakeOpenAI, type FakeOpenAI, type ScriptItem } from "../../test/support/fake-openai-server.ts";
import { ModelConfig } from "./config.ts";
import { EndpointLimits } from "./endpoint-limits.ts";
import { LlmError } from "./llm-error.ts";
import { createOpenAIChat } from "./openai-chat.ts";
import { backoffMs, classifyHttpFailure, type RetryEvent } from "./retry.ts";
import { AnswerTooLarge } from "./wire-check.ts";

const ask = [new HumanMessage("Where should the red ball go?")];

let server: FakeOpenAI | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A model on the fake server whose sleeps return at once and are recorded. */
const flaky = async (script: ScriptItem[], options: Partial<ModelConfig> = {}) => {
  server = await startFakeOpenAI(script);
  const sleeps: number[] = [];
  const retries: RetryEvent[] = [];
  const config = { ...ModelConfig.parse({ model: "gpt-test", ...options }), baseURL: server.url, apiKey: "k" };
  const model = createOpenAIChat(config, {
    sleep: async (ms) => void sleeps.push(ms),
    random: () => 0.5,
    limits: new EndpointLimits(),
    onRetry: (e) => retries.push(e),
  });
  return { model, sleeps, retries, server };
};

describe("backoffMs", () => {
  it("draws uniformly below base·2^retry, capped at 30 s", () => {
    expect(backoffMs(0, () => 0.999)).toBeCloseTo(999);
    expect(backoffMs(3, () => 0.5)).toBe(4000);
    expect(backoffMs(10, () => 0.5)).toBe(15_000);
    expect(backoffMs(2, () => 0)).toBe(0);
  });

  it("never waits less than Retry-After", () => {
    expect(backoffMs(0, () => 0.1, 2000)).toBe(2000);
    expect(backoffMs(4, () => 0.9, 2000)).toBe(14_400);
  });

  it("honours Retry-After only up to 5 minutes", () => {
    expect(backoffMs(0, () => 0.5, 86_400_000)).toBe(300_000);
  });
});

describe("classifyHttpFailure", () => {
  it("never retries an answer cut off for its size, however the SDK wrapped it", () => {
    const cut = new AnswerTooLarge("llm.actor", 1_064_960, 1_111_535, 16);
    const wrapped = new Error("Connection error.", { cause: Object.assign(new TypeError("fetch failed"), { cause: cut }) });
    expect(classifyHttpFailure(wrapped)).toEqual({ retryable: false, reason: cut.message });
  });
});

describe("retries against the fake server", () => {
  it.each([false, true])("waits out a 429 at least Retry-After, then succeeds (streaming %s)", async (streaming) => {
    const { model, sleeps, retries, server } = await flaky([{ fault: "429", retryAfter: 2 }, { text: "ok" }], { streaming });
    const turn = await turnOf(model, ask);

    expect(turn.text).toBe("ok");
    expect(server.requests).toHaveLength(2);
    expect(retries).toEqual([{ attempt: 1, delayMs: 2000, reason: "429 rate limited" }]);
    expect(sleeps).toHaveLength(1);
    expect(sleeps[0]).toBeGreaterThanOrEqual(2000);
  });

  it("retries a 500 with jittered backoff", async () => {
    const { model, sleeps, retries, server } = await flaky([{ fault: "500" }, { fault: "500" }, { text: "ok" }]);
    expect((await turnOf(model, ask)).text).toBe("ok");
    expect(server.requests).toHaveLength(3);
    expect(retries.map((r) => r.reason)).toEqual(["500 from server", "500 from server"]);
    expect(sleeps).toEqual([500, 1000]);
  });

  it.each([false, true])("retries a dropped connection (streaming %s)", async (streaming) => {
    const { model, retries, server } = await flaky([{ fault: "drop" }, { text: "ok" }], { streaming });
    expect((await turnOf(model, ask)).text).toBe("ok");
    expect(server.requests).toHaveLength(2);
    expect(retries.map((r) => r.reason)).toEqual(["connection dropped"]);
  });

  it.each([false, true])("retries after the deadline passes with no answer (streaming %s)", async (streaming) => {
    const { model, retries, server } = await flaky([{ fault: "timeout" }, { text: "ok" }], { streaming, timeoutMs: 150 });
    expect((await turnOf(model, ask)).text).toBe("ok");
    expect(server.requests).toHaveLength(2);
    expect(retries.map((r) => r.reason)).toEqual(["timeout"]);
  });

  it("gives up after maxRetries with an LlmError naming endpoint, model and last cause", async () => {
    const { model, sleeps, server } = await flaky([{ fault: "500" }, { fault: "429" }, { fault: "500" }, { text: "never" }], {
      maxRetries: 2,
    });
    const error = await turnOf(model, ask).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(LlmError);
    const e = error as LlmError;
    expect(e.name).toBe("LlmError");
    expect(e.message).toBe(`${server.url}: model gpt-test failed after 3 attempt(s): 500 fake-openai: internal error`);
    expect(e.endpoint).toBe(server.url);
    expect(e.attempts).toBe(3);
    expect(server.requests).toHaveLength(3);
    expect(sleeps).toHaveLength(2);
  });

  it("does not retry a 400", async () => {
    const { model, sleeps, server } = await flaky([{ fault: "400" }, { text: "never" }]);
    const error = await turnOf(model, ask).catch((e: unknown) => e);

    expect(error).toBeInstanceOf(LlmError);
    expect((error as LlmError).message).toBe(`${server.url}: model gpt-test failed after 1 attempt(s): 400 fake-openai: bad request`);
    expect(server.requests).toHaveLength(1);
    expect(sleeps).toEqual([]);
  });

  it("names a dropped connection's cause chain when it gives up", async () => {
    const { model } = await flaky([{ fault: "drop" }], { maxRetries: 0 });
    await expect(turnOf(model, ask)).rejects.toThrow(/failed after 1 attempt\(s\): Connection error\. ← fetch failed ← other side closed$/);
  });
});

// A 200 whose body is not a chat completion is the server failing, like a 5xx: retried, then a clear error.
describe("malformed 200 answers", () => {
  const malformed = ["html", "empty_object", "null", "no_choices"] as const;
  const cases = malformed.flatMap((fault) => [false, true].map((streaming) => [fault, streaming] as const));

  it.each(cases)("retries a 200 with %s (streaming %s), then succeeds", async (fault, streaming) => {
    const { model, retries, sleeps, server } = await flaky([{ fault }, { text: "ok" }], { streaming });
    expect((await turnOf(model, ask)).text).toBe("ok");
    expect(server.requests).toHaveLength(2);
    expect(retries).toHaveLength(1);
    expect(retries[0]!.reason).toMatch(/^malformed answer/);
    expect(sleeps).toEqual([500]);
  });

  it.each(cases)("gives up on %s (streaming %s) with an LlmError naming endpoint, status and the body's first bytes", async (fault, streaming) => {
    const { model, server } = await flaky([{ fault }, { fault }, { fault }], { streaming, maxRetries: 2 });
    const error = await turnOf(model, ask).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LlmError);
    const message = (error as LlmError).message;
    expect(message).toContain(`${server.url}: model gpt-test failed after 3 attempt(s): malformed answer`);
    expect(message).toContain("HTTP 200");
    expect(message).not.toMatch(/Cannot read properties/);
    const first = { html: "<!DOCTYPE html><html>", empty_object: "{}", null: "null", no_choices: '"choices":[]' }[fault];
    expect(message).toContain(first);
    expect(server.requests).toHaveLength(3);
  });
});

// A stream that ends cleanly but without [DONE] and without a finish_reason was cut short.
describe("a stream that ends without [DONE]", () => {
  it("retries a stream cut before its finish_reason, like a dropped connection", async () => {
    const { model, retries, server } = await flaky([{ text: "half a thought", fault: "cut_stream" }, { text: "ok" }], { streaming: true });
    const turn = await turnOf(model, ask);
    expect(turn.text).toBe("ok");
    expect(turn.usage).toEqual({ input: 10, output: 5, cached: 0 });
    expect(server.requests).toHaveLength(2);
    expect(retries.map((r) => r.reason)).toEqual(["connection dropped"]);
  });

  it("still calls a socket destroyed mid-stream a dropped connection, not a malformed answer", async () => {
    const { model, retries } = await flaky([{ text: "half a thought", fault: "drop_mid_stream" }, { text: "ok" }], { streaming: true });
    expect((await turnOf(model, ask)).text).toBe("ok");
    expect(retries.map((r) => r.reason)).toEqual(["connection dropped"]);
  });

  it("keeps a complete message (finish_reason and usage) whose stream lacks only [DONE]", async () => {
    const { model, retries, server } = await flaky([{ text: "whole", toolCalls: [{ name: "simulate", args: { x: 1 } }], noDone: true }], { streaming: true });
    const turn = await turnOf(model, ask);
    expect(turn.text).toBe("whole");
    expect(turn.toolCalls.map((c) => c.args)).toEqual([{ x: 1 }]);
    expect(turn.usage).toEqual({ input: 10, output: 5, cached: 0 });
    expect(server.requests).toHaveLength(1);
    expect(retries).toEqual([]);
  });

  it("gives up on a stream cut every time with an LlmError saying so", async () => {
    const { model } = await flaky([{ text: "a", fault: "cut_stream" }], { streaming: true, maxRetries: 0 });
    await expect(turnOf(model, ask)).rejects.toThrow(/failed after 1 attempt\(s\): the stream ended without a finish_reason/);
  });
});
