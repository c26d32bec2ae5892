import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { quirkChunks, quirkCompletion, quirkError, quirkItem, type Quirks } from "./fake-openai-quirks.ts";

/** A tool call the fake model makes; `args` is JSON-encoded unless the item has `malformedArgs`, `rawArgs` sent as written. */
export interface FakeToolCall {
  name: string;
  args?: unknown;
  /** The arguments' text on the wire, verbatim (e.g. JSON nested deeper than `JSON.stringify` can write). */
  rawArgs?: string;
  id?: string;
}

/** One scripted answer, served to the next request in order. */
export interface ScriptItem {
  text?: string;
  toolCalls?: FakeToolCall[];
  /** Token counts reported in `usage`; defaults 10 / 5 / 0. */
  usage?: { prompt?: number; completion?: number; cached?: number };
  /** The model name the server reports; defaults to the requested one. */
  model?: string;
  /** Tool-call arguments are cut mid-JSON so they do not parse. */
  malformedArgs?: boolean;
  /** No content and no tool calls. */
  empty?: boolean;
  /** Wait this long before answering (to overlap requests). */
  delayMs?: number;
  /**
   * "timeout" never answers; "drop" destroys the socket; "429" / "500" / "400" are HTTP errors. The malformed
   * 200 answers: "html" a web page (a proxy's or a login page), "empty_object" `{}`, "null" `null`,
   * "no_choices" a completion with `choices: []` (when streaming, the same bodies as SSE events, then [DONE]).
   * "cut_stream" (streaming) closes the stream cleanly after the text, with no finish_reason and no [DONE];
   * "drop_mid_stream" (streaming) sends the text, then destroys the socket.
   */
  fault?: "429" | "500" | "400" | "drop" | "timeout" | "html" | "empty_object" | "null" | "no_choices" | "cut_stream" | "drop_mid_stream";
  /** Streaming: a complete answer (finish_reason and usage) but the stream ends without `data: [DONE]`. */
  noDone?: boolean;
  /** Seconds, sent as Retry-After with a 429. */
  retryAfter?: number;
  /** Ways a real local server departs from the protocol (fake-openai-quirks.ts). */
  quirks?: Quirks;
}

/** The body of a chat-completions request as the client sent it. */
export interface RecordedRequest {
  path: string;
  body: {
    model: string;
    messages: Array<Record<string, unknown>>;
    tools?: Array<{ type: string; function: { name: string; description?: string; parameters?: unknown } }>;
    tool_choice?: unknown;
    stream?: boolean;
    stream_options?: { include_usage?: boolean };
    temperature?: number;
    max_tokens?: number;
    [key: string]: unknown;
  };
}

export interface FakeOpenAI {
  /** Base URL ending in /v1. */
  url: string;
  requests: RecordedRequest[];
  /** The most requests that were open at the server at once. */
  maxInFlight: number;
  push(...items: ScriptItem[]): void;
  close(): Promise<void>;
}

const ROUTES = new Set(["/v1/chat/completions", "/chat/completions"]);

const readBody = async (req: IncomingMessage): Promise<string> => {
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  return Buffer.concat(parts).toString("utf8");
};

const sendJson = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(JSON.stringify(body));
};

const HTML_PAGE = "<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head><body><h1>Bad Gateway</h1></body></html>";

const errorBody = (message: string, type: string) => ({ error: { message, type, param: null, code: null } });

/** The wire form of the item's tool calls; malformed arguments lose their closing half. */
const wireToolCalls = (item: ScriptItem, n: number) =>
  (item.toolCalls ?? []).map((call, i) => {
    const json = call.rawArgs ?? JSON.stringify(call.args ?? {});
    const args = item.malformedArgs ? json.slice(0, Math.max(1, Math.floor(json.length / 2))) : json;
    return { id: call.id ?? `call_${n}_${i}`, type: "function" as const, function: { name: call.name, arguments: args } };
  });

const usageOf = (item: ScriptItem) => {
  const prompt = item.usage?.prompt ?? 10;
  const completion = item.usage?.completion ?? 5;
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: item.usage?.cached ?? 0 },
  };
};

const completion = (item: ScriptItem, id: string, model: string, n: number) => {
  const toolCalls = item.empty ? [] : wireToolCalls(item, n);
  const text = item.empty ? null : (item.text ?? (toolCalls.length ? null : ""));
  return {
    id,
    object: "chat.completion",
    created: 1_700_000_000 + n,
    model,
    choices: [
      {
        index: 0,
        message: { role: "assistant", content: text, ...(toolCalls.length ? { tool_calls: toolCalls } : {}) },
        finish_reason: toolCalls.length ? "tool_calls" : "stop",
      },
    ],
    usage: usageOf(item),
  };
};

/** The SSE chunks of one answer: role first, text in two pieces, each tool call as a header then argument pieces. */
const chunks = (item: ScriptItem, id: string, model: string, n: number, includeUsage: boolean) => {
  const base = { id, object: "chat.completion.chunk", created: 1_700_000_000 + n, model };
  const delta = (d: Record<string, unknown>, finish: string | null = null) => ({
    ...base,
    choices: [{ index: 0, delta: d, finish_reason: finish }],
  });
  const out: unknown[] = [delta({ role: "assistant", content: "" })];
  const text = item.empty ? "" : (item.text ?? "");
  const half = Math.ceil(text.length / 2);
  for (const piece of [text.slice(0, half), text.slice(half)]) if (piece) out.push(delta({ content: piece }));
  const toolCalls = item.empty ? [] : wireToolCalls(item, n);
  toolCalls.forEach((call, index) => {
    const args = call.function.arguments;
    const cut = Math.ceil(args.length / 2);
    out.push(delta({ tool_calls: [{ index, id: call.id, type: "function", function: { name: call.function.name, arguments: "" } }] }));
    for (const piece of [args.slice(0, cut), args.slice(cut)]) {
      if (piece) out.push(delta({ tool_calls: [{ index, function: { arguments: piece } }] }));
    }
  });
  out.push(delta({}, toolCalls.length ? "tool_calls" : "stop"));
  if (includeUsage) out.push({ ...base, choices: [], usage: usageOf(item) });
  return out;
};

/**
 * A local OpenAI-compatible chat-completions server that answers from a script, in order, and records every
 * request body. Faults are per item; a request past the end of the script gets a 400 naming the count.
 */
export const startFakeOpenAI = async (script: ScriptItem[] = []): Promise<FakeOpenAI> => {
  const queue = [...script];
  const requests: RecordedRequest[] = [];
  const hanging = new Set<ServerResponse>();
  let inFlight = 0;
  let served = 0;

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? "").split("?")[0] ?? "";
    if (req.method !== "POST" || !ROUTES.has(path)) {
      sendJson(res, 404, errorBody(`fake-openai: no route ${req.method} ${path}`, "invalid_request_error"));
      return;
    }
    const body = JSON.parse(await readBody(req)) as RecordedRequest["body"];
    requests.push({ path, body });
    const next = queue.shift();
    if (!next) {
      sendJson(res, 400, errorBody(`fake-openai: script exhausted after ${served} answers`, "invalid_request_error"));
      return;
    }
    const quirkAnswer = quirkError(next.quirks);
    if (quirkAnswer) {
      sendJson(res, quirkAnswer.status, quirkAnswer.body);
      return;
    }
    const item = quirkItem(next);
    if (item.delayMs) await new Promise((r) => setTimeout(r, item.delayMs));
    switch (item.fault) {
      case "429":
        sendJson(res, 429, errorBody("fake-openai: rate limited", "rate_limit_error"), {
          ...(item.retryAfter !== undefined ? { "retry-after": String(item.retryAfter) } : {}),
        });
        return;
      case "500":
        sendJson(res, 500, errorBody("fake-openai: internal error", "server_error"));
        return;
      case "400":
        sendJson(res, 400, errorBody("fake-openai: bad request", "invalid_request_error"));
        return;
      case "drop":
        req.socket.destroy();
        return;
      case "timeout":
        hanging.add(res);
        return;
      case "html":
        res.writeHead(200, { "content-type": "text/html" });
        res.end(HTML_PAGE);
        return;
      case "empty_object":
      case "null":
      case "no_choices": {
        const bad =
          item.fault === "null" ? null : item.fault === "empty_object" ? {} : { id: "chatcmpl-x", object: "chat.completion", model: body.model, choices: [] };
        if (!body.stream) {
          sendJson(res, 200, bad);
          return;
        }
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.end(`data: ${JSON.stringify(bad)}\n\ndata: [DONE]\n\n`);
        return;
      }
      case "cut_stream":
      case "drop_mid_stream":
      case undefined:
        break;
    }
    served += 1;
    const id = `chatcmpl-${served}`;
    const model = item.model ?? body.model;
    if (!body.stream) {
      sendJson(res, 200, quirkCompletion(item.quirks, completion(item, id, model, served)));
      return;
    }
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache", connection: "keep-alive" });
    const all = quirkChunks(item.quirks, chunks(item, id, model, served, body.stream_options?.include_usage === true) as Array<Record<string, unknown>>);
    // A cut stream keeps the role and text deltas only: no tool calls, no finish_reason, no usage.
    const cut = item.fault === "cut_stream" || item.fault === "drop_mid_stream";
    const sent = cut ? all.filter((c) => JSON.stringify(c).includes('"content"')) : all;
    for (const chunk of sent) res.write(`data: ${JSON.stringify(chunk)}\n\n`);
    if (item.fault === "drop_mid_stream") {
      setTimeout(() => req.socket.destroy(), 20);
      return;
    }
    res.end(item.fault === "cut_stream" || item.noDone ? "" : "data: [DONE]\n\n");
  };

  const server = createServer((req, res) => {
    inFlight += 1;
    fake.maxInFlight = Math.max(fake.maxInFlight, inFlight);
    res.on("close", () => {
      inFlight -= 1;
      hanging.delete(res);
    });
    handle(req, res).catch((e: unknown) => {
      if (!res.headersSent) sendJson(res, 500, errorBody(`fake-openai: ${String(e)}`, "server_error"));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  const fake: FakeOpenAI = {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    maxInFlight: 0,
    push: (...items) => void queue.push(...items),
    close: async () => {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve, reject) => server.close((e) => (e ? reject(e) : resolve())));
    },
  };
  return fake;
};
