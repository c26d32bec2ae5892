import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { turnOf } from "../../test/support/turn-of.ts";
import { HumanMessage } from "@langchain/core/messages";
import { ModelConfig } from "./config.ts";
import { EndpointLimits } from "./endpoint-limits.ts";
import { LlmError } from "./llm-error.ts";
import { createOpenAIChat } from "./openai-chat.ts";
import type { RetryEvent } from "./retry.ts";

/**
 * A chat answer is cut off past the most bytes its request's output cap allows (wire-check.ts answerLimit), before
 * anything parses it; the server, which would send it again, is not asked twice. With maxOutputTokens 16 the limit
 * is 1 MiB of framing plus 16 KiB.
 */
const LIMIT = 1_048_576 + 16 * 1024;
const FLOOD = 64 * 1024 * 1024;

const completion = (content: string) =>
  JSON.stringify({
    id: "c1",
    object: "chat.completion",
    created: 1,
    model: "m",
    choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
    usage: { prompt_tokens: 1, completion_tokens: 16, total_tokens: 17 },
  });
const event = (delta: object, finish: string | null = null) =>
  `data: ${JSON.stringify({ id: "c1", object: "chat.completion.chunk", created: 1, model: "m", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
const stream = (content: string) =>
  `${event({ role: "assistant", content: "" })}${event({ content })}${event({}, "stop")}data: ${JSON.stringify({ id: "c1", object: "chat.completion.chunk", created: 1, model: "m", choices: [], usage: { prompt_tokens: 1, completion_tokens: 16, total_tokens: 17 } })}\n\ndata: [DONE]\n\n`;
/** An answer of exactly `bytes` bytes, its content padded with "a". */
const sized = (body: (content: string) => string, bytes: number) => body("a".repeat(bytes - body("").length));

/** How many bytes the server wrote of its last endless answer, and when it stopped writing. */
const sending = { bytes: 0, done: Promise.resolve() };
let requests = 0;
let server: Server;
let baseURL: string;

const drainedOrClosed = (res: ServerResponse) =>
  new Promise<void>((resolve) => {
    const done = () => (res.off("drain", done).off("close", done), resolve());
    res.on("drain", done).on("close", done);
  });

/** `piece` written over and over until the client goes away (or FLOOD bytes, then `end`). */
const flood = async (res: ServerResponse, start: string, piece: string, end: string) => {
  res.write(start);
  sending.bytes = start.length;
  const chunk = piece.repeat(Math.ceil(65_536 / piece.length));
  while (sending.bytes < FLOOD && !res.destroyed) {
    sending.bytes += chunk.length;
    if (!res.write(chunk)) await drainedOrClosed(res);
  }
  res.end(end);
};

const answer = (res: ServerResponse, model: string, streamed: boolean) => {
  res.writeHead(200, { "content-type": streamed ? "text/event-stream" : "application/json" });
  const exact = /^exact:(\d+)$/.exec(model);
  if (exact) return void res.end(sized(streamed ? stream : completion, Number(exact[1])));
  if (model !== "flood") return void res.end(streamed ? stream("ok") : completion("ok"));
  const [start, end] = completion("\u0000").split("\\u0000") as [string, string];
  sending.done = streamed ? flood(res, event({ role: "assistant", content: "" }), event({ content: "aaaa" }), "") : flood(res, start, "a", end);
};

const readBody = async (req: IncomingMessage): Promise<{ model: string; stream?: boolean }> => {
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  return JSON.parse(Buffer.concat(parts).toString("utf8")) as { model: string; stream?: boolean };
};

beforeAll(async () => {
  server = createServer((req, res) => {
    requests++;
    void readBody(req).then((body) => answer(res, body.model, body.stream === true));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
beforeEach(() => {
  requests = 0;
});

const ask = async (model: string, streaming: boolean) => {
  const retries: RetryEvent[] = [];
  const config = { ...ModelConfig.parse({ model, maxOutputTokens: 16, streaming, maxRetries: 3, timeoutMs: 30_000 }), baseURL, apiKey: "k" };
  const chat = createOpenAIChat(config, { where: "llm.actor", sleep: async () => {}, limits: new EndpointLimits(), onRetry: (e) => void retries.push(e) });
  const result = await turnOf(chat, [new HumanMessage("Say something long.")]).catch((e: unknown) => e);
  return { result, retries };
};

const REFUSED =
  /: llm\.actor\.baseURL: the endpoint answered with over 1,064,960 bytes \(got ([\d,]+) when it was cut off\), more than 16 output tokens take; refused before parsing, check the endpoint$/;

describe("a chat answer's size, bounded by the request's output cap", () => {
  it.each([false, true])("refuses an endless answer (streaming %s) naming the setting and sizes, stops the download and does not retry", async (streaming) => {
    const { result, retries } = await ask("flood", streaming);
    expect(result).toBeInstanceOf(LlmError);
    expect((result as Error).message).toMatch(REFUSED);
    expect((result as Error).message).toMatch(/failed after 1 attempt\(s\)/);
    expect(retries).toEqual([]);
    expect(requests).toBe(1);
    await sending.done;
    // Cut off: the server saw the connection close a socket buffer or so past the limit, far short of the flood.
    expect(sending.bytes).toBeLessThan(16 * 1024 * 1024);
  });

  it.each([false, true])("passes an answer of exactly the limit and refuses one byte more (streaming %s)", async (streaming) => {
    const whole = await ask(`exact:${LIMIT}`, streaming);
    expect(whole.result).toMatchObject({ text: "a".repeat(LIMIT - (streaming ? stream("") : completion("")).length) });
    const over = await ask(`exact:${LIMIT + 1}`, streaming);
    expect((over.result as Error).message).toMatch(REFUSED);
    expect(over.retries).toEqual([]);
  });
});
