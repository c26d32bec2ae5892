import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { RecordedRequest } from "./fake-openai-server.ts";

/**
 * How the emulated server and model behave. Unlike fake-openai-server.ts (a script, answer by answer), this
 * server answers every request the same way its switches say, so a probe like `hexa doctor` can meet the
 * endpoints it will meet in the field: vLLM without a tool parser, llama.cpp without json_schema, Ollama
 * without streamed usage, one GPU serving one request at a time, a small context that truncates silently.
 */
export interface EndpointModes {
  /** Listed by GET /models; the first is also the model a request without `model` gets. */
  models?: string[];
  /** Reported as the answering model (a dated snapshot name); defaults to the requested one. */
  servedModel?: string;
  /** Sent as `system_fingerprint` when set. */
  fingerprint?: string;
  /** With tools offered: native `tool_calls`, a `<tool_call>` JSON block in the text, or prose only. */
  tools?: "native" | "text" | "none";
  /** `response_format: {type: "json_schema"}` honoured or refused with a 400. */
  jsonSchema?: "ok" | "refuse";
  /** A forced tool (`tool_choice: {type: "function"}`) honoured or refused with a 400. */
  forcedTool?: "ok" | "refuse";
  /** Plain answers carry `usage`; streamed ones carry it when asked (include_usage) and this is true. */
  usage?: boolean;
  streamedUsage?: boolean;
  /** Where the model's reasoning goes: a `reasoning_content` field, a `<think>` block in the text, or nowhere. */
  reasoning?: "none" | "reasoning_content" | "think";
  /** Requests are answered one at a time, in arrival order. */
  serial?: boolean;
  /** Input beyond this many tokens is dropped without an error, and the reported input count says so. */
  contextTokens?: number;
  /** The answer to a request without tools (and the forced tool's arguments): a JSON text, or one made from the request. */
  reply?: string | ((body: RecordedRequest["body"]) => string);
  /** `image_url` parts: taken (the default) or refused with a 400. */
  images?: "ok" | "refuse";
  /** More `image_url` parts than this in one request are refused with a 400, as vLLM's --limit-mm-per-prompt does. */
  maxImages?: number;
  /** `video_url` parts: taken, or refused with a 400 (the default). */
  video?: "ok" | "refuse";
  /** How long each answer takes. */
  delayMs?: number;
}

export interface FakeEndpoint {
  /** Base URL ending in /v1. */
  url: string;
  requests: RecordedRequest[];
  maxInFlight: number;
  close(): Promise<void>;
}

/** Tokens the emulated tokenizer counts: one per 4 characters of message text, as hexa estimates (budget.ts). */
const tokensOf = (messages: Array<Record<string, unknown>>): number =>
  Math.ceil(messages.reduce((n, m) => n + (typeof m.content === "string" ? m.content.length : 0), 0) / 4);

const sendJson = (res: ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
};

const refuse = (res: ServerResponse, what: string) =>
  sendJson(res, 400, { error: { message: `fake-endpoint: ${what} is not supported`, type: "invalid_request_error", param: null, code: null } });

type Body = RecordedRequest["body"];

/** The image and video parts of a request's messages. */
const mediaIn = (b: Body) => {
  const parts = b.messages.flatMap((m) => (Array.isArray(m.content) ? (m.content as Array<{ type?: string }>) : []));
  return { image: parts.filter((p) => p.type === "image_url").length, video: parts.filter((p) => p.type === "video_url").length };
};

const forcedName = (b: Body): string | undefined => {
  const choice = b.tool_choice as { type?: string; function?: { name?: string } } | undefined;
  return typeof choice === "object" && choice?.type === "function" ? choice.function?.name : undefined;
};

/** The model's message: content, tool calls and reasoning, by the switches. */
const messageOf = (m: EndpointModes, b: Body) => {
  const reply = typeof m.reply === "function" ? m.reply(b) : (m.reply ?? '{"answer": 4}');
  const forced = forcedName(b);
  const offered = b.tools?.[0]?.function.name;
  let content: string | null = reply;
  let toolCalls: unknown[] = [];
  if (forced) {
    content = null;
    toolCalls = [{ id: "call_forced", type: "function", function: { name: forced, arguments: reply } }];
  } else if (offered) {
    const args = { a: 2, b: 2 };
    if ((m.tools ?? "native") === "native") {
      content = null;
      toolCalls = [{ id: "call_1", type: "function", function: { name: offered, arguments: JSON.stringify(args) } }];
    } else content = m.tools === "text" ? `<tool_call>\n${JSON.stringify({ name: offered, arguments: args })}\n</tool_call>` : "The sum is 4.";
  }
  const thought = "The user wants an answer; I reply briefly.";
  if (m.reasoning === "think") content = `<think>${thought}</think>\n${content ?? ""}`;
  return {
    role: "assistant",
    content,
    ...(toolCalls.length ? { tool_calls: toolCalls } : {}),
    ...(m.reasoning === "reasoning_content" ? { reasoning_content: thought } : {}),
  };
};

/** A local OpenAI-compatible server emulating an endpoint with the given switches; records every request. */
export const startFakeEndpoint = async (modes: EndpointModes = {}): Promise<FakeEndpoint> => {
  const requests: RecordedRequest[] = [];
  let inFlight = 0;
  let queue: Promise<void> = Promise.resolve();
  let served = 0;

  const answer = async (res: ServerResponse, b: Body) => {
    await new Promise((r) => setTimeout(r, modes.delayMs ?? 20));
    const format = b.response_format as { type?: string } | undefined;
    if (format?.type === "json_schema" && modes.jsonSchema === "refuse") return refuse(res, "response_format json_schema");
    if (forcedName(b) && modes.forcedTool === "refuse") return refuse(res, "tool_choice of a named function");
    const media = mediaIn(b);
    if (media.image > 0 && modes.images === "refuse") return refuse(res, "image input");
    if (media.image > (modes.maxImages ?? Number.POSITIVE_INFINITY)) return refuse(res, `more than ${modes.maxImages} images in one request`);
    if (media.video > 0 && (modes.video ?? "refuse") === "refuse") return refuse(res, "video input");
    served += 1;
    const sent = tokensOf(b.messages);
    const prompt = modes.contextTokens === undefined ? sent : Math.min(sent, modes.contextTokens);
    const usage = { prompt_tokens: prompt, completion_tokens: 5, total_tokens: prompt + 5 };
    const message = messageOf(modes, b);
    const finish = message.tool_calls ? "tool_calls" : "stop";
    const base = {
      id: `chatcmpl-${served}`,
      created: 1_700_000_000 + served,
      model: modes.servedModel ?? b.model,
      ...(modes.fingerprint ? { system_fingerprint: modes.fingerprint } : {}),
    };
    if (!b.stream) {
      const usageField = modes.usage === false ? {} : { usage };
      return sendJson(res, 200, { ...base, object: "chat.completion", choices: [{ index: 0, message, finish_reason: finish }], ...usageField });
    }
    res.writeHead(200, { "content-type": "text/event-stream" });
    const chunk = (delta: unknown, finishReason: string | null) => ({
      ...base,
      object: "chat.completion.chunk",
      choices: [{ index: 0, delta, finish_reason: finishReason }],
    });
    const { tool_calls, ...rest } = message as typeof message & { tool_calls?: Array<Record<string, unknown>> };
    res.write(`data: ${JSON.stringify(chunk(rest, null))}\n\n`);
    if (tool_calls) res.write(`data: ${JSON.stringify(chunk({ tool_calls: tool_calls.map((c, index) => ({ index, ...(c as object) })) }, null))}\n\n`);
    res.write(`data: ${JSON.stringify(chunk({}, finish))}\n\n`);
    if (b.stream_options?.include_usage && modes.streamedUsage !== false && modes.usage !== false) {
      res.write(`data: ${JSON.stringify({ ...base, object: "chat.completion.chunk", choices: [], usage })}\n\n`);
    }
    res.end("data: [DONE]\n\n");
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? "").split("?")[0] ?? "";
    if (req.method === "GET" && (path === "/v1/models" || path === "/models")) {
      return sendJson(res, 200, { object: "list", data: (modes.models ?? ["fake-model"]).map((id) => ({ id, object: "model", owned_by: "fake" })) });
    }
    if (req.method !== "POST" || (path !== "/v1/chat/completions" && path !== "/chat/completions")) {
      return sendJson(res, 404, { error: { message: `fake-endpoint: no route ${req.method} ${path}` } });
    }
    const parts: Buffer[] = [];
    for await (const part of req) parts.push(part as Buffer);
    const b = JSON.parse(Buffer.concat(parts).toString("utf8")) as Body;
    requests.push({ path, body: b });
    if (!modes.serial) return answer(res, b);
    const turn = queue.then(() => answer(res, b));
    queue = turn.catch(() => {});
    return turn;
  };

  const server = createServer((req, res) => {
    inFlight += 1;
    fake.maxInFlight = Math.max(fake.maxInFlight, inFlight);
    res.on("close", () => (inFlight -= 1));
    handle(req, res).catch((e: unknown) => {
      if (!res.headersSent) sendJson(res, 500, { error: { message: `fake-endpoint: ${String(e)}` } });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const fake: FakeEndpoint = {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    maxInFlight: 0,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve, reject) => server.close((e) => (e ? reject(e) : resolve())));
    },
  };
  return fake;
};
