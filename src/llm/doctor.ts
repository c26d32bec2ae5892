import { z } from "zod";
import { CHARS_PER_TOKEN } from "./budget.ts";
import { probeVision, VisionReport } from "./doctor-vision.ts";

/** One endpoint and model, as a role's resolved config names them. */
export interface Endpoint {
  baseURL: string;
  apiKey: string;
  model: string;
  timeoutMs: number;
}

/**
 * What a few cheap calls found out about one endpoint and model (hexa doctor). Read from the wire with plain
 * fetch, not through langchain: the point is what the server sends (field names, usage, fingerprints), which
 * the client layers smooth over. Cached on disk, so it carries a version (style.md §14).
 */
export const EndpointReport = z.object({
  schemaVersion: z.literal(1),
  baseURL: z.string(),
  model: z.string(),
  checkedAt: z.iso.datetime(),
  reachable: z.boolean(),
  /** Why the endpoint could not be reached or the plain call failed. */
  error: z.string().nullable(),
  /** GET /models listed the model ("unlisted": the list was unavailable or empty, so it is not known). */
  modelFound: z.enum(["yes", "no", "unlisted"]),
  listed: z.array(z.string()),
  /** A plain chat call answered. */
  chat: z.boolean(),
  servedModel: z.string().nullable(),
  fingerprint: z.string().nullable(),
  toolCalls: z.enum(["tool_calls", "text", "none"]),
  structured: z.enum(["json_schema", "tool", "none"]),
  usagePlain: z.boolean(),
  usageStreamed: z.boolean(),
  reasoning: z.enum(["reasoning_content", "think", "none"]),
  /** Input tokens sent in the long prompt (estimated, CHARS_PER_TOKEN) and the count the server reported. */
  context: z.object({ sent: z.number(), reported: z.number().nullable() }),
  /** Latency of one request alone, then of two sent at once (the faster, the slower), in ms. */
  parallel: z.object({ soloMs: z.number(), fastMs: z.number(), slowMs: z.number() }).nullable(),
  /** Images and video (doctor-vision.ts); absent when not asked (no vision role on the endpoint). */
  vision: VisionReport.optional(),
});
export type EndpointReport = z.infer<typeof EndpointReport>;

export interface ProbeOptions {
  /** Size of the long prompt, in estimated tokens. */
  contextTokens: number;
  /** Also find out whether the endpoint takes images, how many, and video (the `llm.vision` role). */
  vision?: boolean;
  now?: () => number;
  fetch?: typeof fetch;
}

type Json = Record<string, unknown>;
const isRecord = (v: unknown): v is Json => typeof v === "object" && v !== null && !Array.isArray(v);

interface Answer {
  status: number;
  text: string;
  json: unknown;
  ms: number;
}

/** Reasoning models on OpenAI take max_completion_tokens and refuse max_tokens. */
const capField = (model: string) => (/^(o\d|gpt-5)/.test(model) ? "max_completion_tokens" : "max_tokens");

const TOOL = {
  type: "function",
  function: {
    name: "add",
    description: "Adds two integers.",
    parameters: { type: "object", properties: { a: { type: "integer" }, b: { type: "integer" } }, required: ["a", "b"] },
  },
};
const ANSWER_SCHEMA = { type: "object", properties: { answer: { type: "integer" } }, required: ["answer"] };
const FILLER = "the quick brown fox jumps over the lazy dog. ";

const firstMessage = (json: unknown): Json | undefined => {
  const choice = isRecord(json) && Array.isArray(json.choices) ? json.choices[0] : undefined;
  return isRecord(choice) && isRecord(choice.message) ? choice.message : undefined;
};

const promptTokens = (json: unknown): number | null => {
  const usage = isRecord(json) && isRecord(json.usage) ? json.usage : undefined;
  return typeof usage?.prompt_tokens === "number" ? usage.prompt_tokens : null;
};

/** The events of an SSE body (data lines, JSON ones only). */
const events = (sse: string): unknown[] =>
  sse.split("\n").flatMap((l) => {
    if (!l.startsWith("data:")) return [];
    try {
      return [JSON.parse(l.slice(5).trim()) as unknown];
    } catch {
      return [];
    }
  });

const oneLine = (s: string) => s.replace(/\s+/g, " ").trim().slice(0, 160);

/** A request to the endpoint: a GET without a body, a POST of the body with the model filled in. */
const requester = (ep: Endpoint, o: Pick<ProbeOptions, "now" | "fetch">) => {
  const now = o.now ?? (() => performance.now());
  const doFetch = o.fetch ?? fetch;
  const base = ep.baseURL.replace(/\/+$/, "");
  const headers = { "content-type": "application/json", authorization: `Bearer ${ep.apiKey}` };
  const request = async (path: string, body?: Json): Promise<Answer> => {
    const started = now();
    const r = await doFetch(`${base}${path}`, {
      method: body ? "POST" : "GET",
      headers,
      ...(body ? { body: JSON.stringify({ model: ep.model, ...body }) } : {}),
      signal: AbortSignal.timeout(ep.timeoutMs),
    });
    const text = await r.text();
    let json: unknown = null;
    try {
      json = JSON.parse(text);
    } catch {
      // SSE or not JSON: the caller reads the text
    }
    return { status: r.status, text, json, ms: now() - started };
  };
  return { request, chat: (body: Json, cap = 256) => request("/chat/completions", { [capField(ep.model)]: cap, ...body }) };
};

const ask = (content: string) => [{ role: "user", content }];
const READY = "Reply with the single word: ready";

const servedOf = (json: unknown): Pick<EndpointReport, "servedModel" | "fingerprint"> => {
  const j = isRecord(json) ? json : {};
  return {
    servedModel: typeof j.model === "string" ? j.model : null,
    fingerprint: typeof j.system_fingerprint === "string" && j.system_fingerprint ? j.system_fingerprint : null,
  };
};

/**
 * A cached report with the model name and fingerprint the endpoint answers with now (one short call): the
 * capabilities of a server change rarely, the snapshot behind a model name more often.
 */
export const refreshServed = async (ep: Endpoint, cached: EndpointReport, o: Pick<ProbeOptions, "fetch"> = {}): Promise<EndpointReport> => {
  try {
    const plain = await requester(ep, o).chat({ messages: ask(READY) }, 16);
    return plain.status === 200 ? { ...cached, ...servedOf(plain.json) } : cached;
  } catch {
    return cached;
  }
};

type Chat = ReturnType<typeof requester>["chat"];

/** The report of an endpoint nothing has been found out about yet. */
const unprobed = (ep: Endpoint, contextTokens: number): EndpointReport => ({
  schemaVersion: 1,
  baseURL: ep.baseURL,
  model: ep.model,
  checkedAt: new Date().toISOString(),
  reachable: false,
  error: null,
  modelFound: "unlisted",
  listed: [],
  chat: false,
  servedModel: null,
  fingerprint: null,
  toolCalls: "none",
  structured: "none",
  usagePlain: false,
  usageStreamed: false,
  reasoning: "none",
  context: { sent: contextTokens, reported: null },
  parallel: null,
});

/** What an answer of GET /models says: the endpoint is reachable, the models it lists, whether `model` is one. */
const modelListing = (models: Answer, model: string): Pick<EndpointReport, "reachable" | "listed" | "modelFound"> => {
  const data = isRecord(models.json) && Array.isArray(models.json.data) ? models.json.data : [];
  const listed = data.flatMap((m) => (isRecord(m) && typeof m.id === "string" ? [m.id] : []));
  return { reachable: true, listed, modelFound: models.status === 200 && listed.length ? (listed.includes(model) ? "yes" : "no") : "unlisted" };
};

/** What the answer of a plain chat call shows: the model and fingerprint served, usage, and where reasoning goes. */
const plainFindings = (json: unknown, message: Json): Pick<EndpointReport, "chat" | "servedModel" | "fingerprint" | "usagePlain" | "reasoning"> => {
  const content = typeof message.content === "string" ? message.content : "";
  const reasoningField = [message.reasoning_content, message.reasoning].some((r) => typeof r === "string" && r.length > 0);
  return {
    chat: true,
    ...servedOf(json),
    usagePlain: promptTokens(json) !== null,
    reasoning: reasoningField ? "reasoning_content" : /<think>/.test(content) ? "think" : "none",
  };
};

/** Whether a streamed answer reports usage when asked to (stream_options.include_usage). */
const probeStreamedUsage = async (chat: Chat): Promise<boolean> => {
  const streamed = await chat({ messages: ask(READY), stream: true, stream_options: { include_usage: true } });
  return streamed.status === 200 && events(streamed.text).some((e) => isRecord(e) && isRecord(e.usage) && typeof e.usage.prompt_tokens === "number");
};

/** Where the model puts a tool call it is offered: in tool_calls, in its text, or nowhere. */
const probeToolCalls = async (chat: Chat): Promise<EndpointReport["toolCalls"]> => {
  const tooled = await chat({ messages: ask("Use the add tool to compute 2 + 2."), tools: [TOOL], tool_choice: "auto" });
  const tm = firstMessage(tooled.json);
  const calls = tm && Array.isArray(tm.tool_calls) ? tm.tool_calls : [];
  const tmText = typeof tm?.content === "string" ? tm.content : "";
  return calls.length ? "tool_calls" : /<tool_call>|"name"\s*:\s*"add"/.test(tmText) ? "text" : "none";
};

/** How the endpoint takes a schema for the answer: response_format json_schema, else a forced tool call, else not at all. */
const probeStructured = async (chat: Chat): Promise<EndpointReport["structured"]> => {
  const structuredAsk = ask('What is 2 + 2? Answer with a JSON object {"answer": <integer>}.');
  const schema = await chat({
    messages: structuredAsk,
    response_format: { type: "json_schema", json_schema: { name: "answer", schema: ANSWER_SCHEMA, strict: false } },
  });
  if (schema.status === 200) return "json_schema";
  const forced = await chat({
    messages: structuredAsk,
    tools: [{ type: "function", function: { name: "answer", description: "Give the answer.", parameters: ANSWER_SCHEMA } }],
    tool_choice: { type: "function", function: { name: "answer" } },
  });
  const fm = firstMessage(forced.json);
  return forced.status === 200 && Array.isArray(fm?.tool_calls) && fm.tool_calls.length ? "tool" : "none";
};

/** A prompt of about `contextTokens` tokens, and the input count the server reports for it. */
const probeContext = async (chat: Chat, contextTokens: number): Promise<EndpointReport["context"]> => {
  const long = FILLER.repeat(Math.ceil((contextTokens * CHARS_PER_TOKEN) / FILLER.length)).slice(0, contextTokens * CHARS_PER_TOKEN);
  const contextAnswer = await chat({ messages: ask(`${long}\nHow many times does the word fox appear above? Reply with a number.`) }, 16);
  return { sent: Math.ceil(long.length / CHARS_PER_TOKEN), reported: contextAnswer.status === 200 ? promptTokens(contextAnswer.json) : null };
};

/** Latencies of one request alone and of two sent at once; null when any of them failed. */
const probeParallel = async (chat: Chat): Promise<EndpointReport["parallel"]> => {
  // Two pairs, the one with the smaller gap kept: a busy client can delay one answer, never hasten one.
  const solo = await chat({ messages: ask(READY) }, 16);
  const pairs: Answer[][] = [];
  for (let i = 0; i < 2; i++) pairs.push(await Promise.all([0, 1].map(() => chat({ messages: ask(READY) }, 16))));
  if (solo.status !== 200 || !pairs.flat().every((a) => a.status === 200)) return null;
  const gaps = pairs.map((p) => ({ soloMs: solo.ms, fastMs: Math.min(p[0]!.ms, p[1]!.ms), slowMs: Math.max(p[0]!.ms, p[1]!.ms) }));
  return gaps.reduce((a, b) => (b.slowMs - b.fastMs < a.slowMs - a.fastMs ? b : a));
};

/** Finds out, with a few cheap calls in turn, what the endpoint and model can do; stops at the first that fails. */
export const probeEndpoint = async (ep: Endpoint, o: ProbeOptions): Promise<EndpointReport> => {
  const { request, chat } = requester(ep, o);
  const report = unprobed(ep, o.contextTokens);

  let models: Answer;
  try {
    models = await request("/models");
  } catch (e) {
    const cause = e instanceof Error && e.cause instanceof Error ? ` ← ${e.cause.message}` : "";
    return { ...report, error: `${e instanceof Error ? e.message : String(e)}${cause}` };
  }
  Object.assign(report, modelListing(models, ep.model));

  const plain = await chat({ messages: ask(READY) });
  const message = firstMessage(plain.json);
  if (plain.status !== 200 || !message) return { ...report, error: `POST /chat/completions: HTTP ${plain.status}: ${oneLine(plain.text)}` };
  Object.assign(report, plainFindings(plain.json, message));

  report.usageStreamed = await probeStreamedUsage(chat);
  report.toolCalls = await probeToolCalls(chat);
  report.structured = await probeStructured(chat);
  report.context = await probeContext(chat, o.contextTokens);
  report.parallel = await probeParallel(chat);
  if (o.vision) report.vision = await probeVision(chat);
  return report;
};

/** A reported input count below this share of the estimate means the server cut the prompt. */
const TRUNCATED_BELOW = 0.5;
/**
 * Of two requests sent at once, the slower finishing this share of a lone request's time after the faster means
 * it waited for it: served in turn (overlapped, both take about as long as one alone).
 */
const SERIAL_GAP = 0.5;

export const contextVerdict = (r: EndpointReport): "ok" | "truncated" | "unknown" =>
  r.context.reported === null ? "unknown" : r.context.reported < r.context.sent * TRUNCATED_BELOW ? "truncated" : "ok";

export const parallelVerdict = (r: EndpointReport): "overlapped" | "serialised" | "unknown" =>
  r.parallel === null ? "unknown" : r.parallel.slowMs - r.parallel.fastMs >= r.parallel.soloMs * SERIAL_GAP ? "serialised" : "overlapped";
