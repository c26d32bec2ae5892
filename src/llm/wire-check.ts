import { AsyncLocalStorage } from "node:async_hooks";
import { boundedResponse } from "../util/bounded-response.ts";

/**
 * What one HTTP exchange with a chat-completions endpoint looked like on the wire, recorded by `checkingFetch`
 * beside the SDK: the SDK (and langchain above it) assume a well-formed answer and fail on `{}`, `null`, an empty
 * `choices` or an HTML page with "Cannot read properties of undefined", and cannot tell a stream that was cut
 * short from one that ended.
 */
export interface WireRecord {
  status: number;
  contentType: string;
  /** The body's first bytes (as text), for error messages. */
  head: string;
  bytes: number;
  /** Non-streaming: the body is a chat completion with at least one choice carrying a message. */
  wellFormed: boolean;
  /** Streaming: some event carried a choice; one had a finish_reason; the server sent `[DONE]`. */
  sawChoice: boolean;
  sawFinish: boolean;
  sawDone: boolean;
  /** Streaming: the body ended (read to its end by the SDK). */
  ended: boolean;
  /** The first choice's finish_reason, when one was seen. */
  finishReason?: string;
  /**
   * The first choice's `reasoning_content` or `reasoning` (vLLM's and llama.cpp's reasoning parsers): langchain
   * keeps only the first, and only sometimes, so it is read here.
   */
  reasoning: string;
  /** The answer carried a `usage` object (older Ollama streams and some proxies send none). */
  sawUsage: boolean;
  /** The body was cut off past `answerLimit`: the verdict on this answer, whatever the SDK made of the cut. */
  refused?: AnswerTooLarge;
}

const HEAD_BYTES = 200;
const recorder = new AsyncLocalStorage<WireRecord[]>();

/** Runs fn with a fresh list that every request fn makes through `checkingFetch` is recorded in. */
export const recordingWire = <T>(fn: (records: WireRecord[]) => Promise<T>): Promise<T> => {
  const records: WireRecord[] = [];
  return recorder.run(records, () => fn(records));
};

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

const isCompletion = (v: unknown): boolean =>
  isRecord(v) && Array.isArray(v.choices) && v.choices.length > 0 && isRecord(v.choices[0]) && isRecord(v.choices[0].message);

const reasoningOf = (m: Record<string, unknown>): string =>
  typeof m.reasoning_content === "string" ? m.reasoning_content : typeof m.reasoning === "string" ? m.reasoning : "";

/** What a completion or one of its stream events says beyond what langchain passes on. */
const note = (rec: WireRecord, event: Record<string, unknown>, part: "message" | "delta") => {
  if (isRecord(event.usage)) rec.sawUsage = true;
  if (!Array.isArray(event.choices)) return;
  const first = event.choices.find((c) => isRecord(c) && (c.index ?? 0) === 0);
  if (!isRecord(first)) return;
  if (typeof first.finish_reason === "string" && first.finish_reason) rec.finishReason = first.finish_reason;
  if (isRecord(first[part])) rec.reasoning += reasoningOf(first[part]);
};

/** Reads SSE `data:` lines as they pass, keeping only the current partial line. */
const sseInspector = (rec: WireRecord): TransformStream<Uint8Array, Uint8Array> => {
  const decoder = new TextDecoder();
  let partial = "";
  const line = (l: string) => {
    if (!l.startsWith("data:")) return;
    const data = l.slice(5).trim();
    if (data === "[DONE]") {
      rec.sawDone = true;
      return;
    }
    let event: unknown;
    try {
      event = JSON.parse(data);
    } catch {
      return;
    }
    if (!isRecord(event)) return;
    note(rec, event, "delta");
    if (!Array.isArray(event.choices)) return;
    for (const c of event.choices) {
      if (!isRecord(c)) continue;
      rec.sawChoice = true;
      if (typeof c.finish_reason === "string" && c.finish_reason) rec.sawFinish = true;
    }
  };
  const take = (text: string) => {
    if (rec.head.length < HEAD_BYTES) rec.head += text.slice(0, HEAD_BYTES - rec.head.length);
    const lines = (partial + text).split("\n");
    partial = lines.pop() ?? "";
    lines.forEach(line);
  };
  return new TransformStream({
    transform(chunk, out) {
      rec.bytes += chunk.byteLength;
      take(decoder.decode(chunk, { stream: true }));
      out.enqueue(chunk);
    },
    flush() {
      take(decoder.decode());
      line(partial);
      rec.ended = true;
    },
  });
};

/**
 * Bytes an answer may take per output token the request allows. Streamed, each token is one SSE event of its own
 * (id, model name, timestamps, fingerprint, OpenAI's padding field: 200–400 bytes) around the token's text, which
 * is at most ~100 bytes even escaped twice (a tool call's arguments); 1 KiB leaves twice that or more.
 */
const TOKEN_BYTES = 1024;
/** And per token and alternative when the request asks for logprobs (`{"token", "logprob", "bytes": […]}`). */
const LOGPROB_BYTES = 512;
/** Beside the tokens: the JSON or SSE framing, usage, and reasoning some servers do not count as output. */
const FRAMING_BYTES = 1024 * 1024;
/** A request without an output cap may be answered up to the longest output current models give (128k tokens). */
const UNCAPPED_TOKENS = 131_072;

const positiveInt = (v: unknown): number | undefined => (Number.isSafeInteger(v) && (v as number) > 0 ? (v as number) : undefined);

/** The request body's fields that size the answer; none when it is not JSON. */
const requestFields = (init: RequestInit | undefined): Record<string, unknown> => {
  if (typeof init?.body !== "string") return {};
  try {
    const body: unknown = JSON.parse(init.body);
    return isRecord(body) ? body : {};
  } catch {
    return {};
  }
};

/**
 * The most bytes an honest answer to the request takes, streamed or not (docs/security.md): its output cap (the
 * larger of max_tokens and max_completion_tokens, else UNCAPPED_TOKENS) times TOKEN_BYTES, for each of its `n`
 * choices, plus FRAMING_BYTES. The default cap of 8192 tokens allows 9 MiB; no cap, 129 MiB.
 */
const answerLimit = (init?: RequestInit): { maxBytes: number; tokens: number } => {
  const body = requestFields(init);
  const caps = [body.max_tokens, body.max_completion_tokens].map(positiveInt).filter((n) => n !== undefined);
  const tokens = caps.length > 0 ? Math.max(...caps) : UNCAPPED_TOKENS;
  const alternatives = body.logprobs === true ? 1 + (positiveInt(body.top_logprobs) ?? 0) : 0;
  const perToken = TOKEN_BYTES + alternatives * LOGPROB_BYTES;
  return { maxBytes: FRAMING_BYTES + (positiveInt(body.n) ?? 1) * tokens * perToken, tokens };
};

/** An answer longer than its request allows, cut off before parsing: not retried, the server would send it again. */
export class AnswerTooLarge extends Error {
  constructor(where: string, maxBytes: number, bytes: number, tokens: number) {
    const n = (x: number) => x.toLocaleString("en");
    super(
      `${where}.baseURL: the endpoint answered with over ${n(maxBytes)} bytes (got ${n(bytes)} when it was cut off), more than ${n(tokens)} output tokens take; refused before parsing, check the endpoint`,
    );
    this.name = "AnswerTooLarge";
  }
}

const newRecord = (): WireRecord => ({
  status: 0,
  contentType: "",
  head: "",
  bytes: 0,
  wellFormed: false,
  sawChoice: false,
  sawFinish: false,
  sawDone: false,
  ended: false,
  reasoning: "",
  sawUsage: false,
});

/** What a whole JSON answer says. */
const inspectJson = (rec: WireRecord, text: string) => {
  rec.head = text.slice(0, HEAD_BYTES);
  rec.bytes = text.length;
  rec.ended = true;
  try {
    const body: unknown = JSON.parse(text);
    rec.wellFormed = isCompletion(body);
    if (isRecord(body)) note(rec, body, "message");
  } catch {
    rec.wellFormed = false;
  }
};

/**
 * A fetch for the OpenAI SDK whose answers, error bodies included, are cut off past `answerLimit` (the connection
 * closed, `where` named in the AnswerTooLarge), and recorded inside `recordingWire`. A JSON body is read in full
 * from a clone (it is complete anyway); a stream passes through an inspector unchanged.
 */
export const checkingFetch =
  (where: string) =>
  async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const { maxBytes, tokens } = answerLimit(init);
    const records = recorder.getStore();
    const rec = records ? newRecord() : undefined;
    const refuse = (bytes: number) => {
      const refusal = new AnswerTooLarge(where, maxBytes, bytes, tokens);
      if (rec) rec.refused = refusal;
      return refusal;
    };
    const response = boundedResponse(await fetch(input, init), maxBytes, refuse);
    if (!records || !rec) return response;
    rec.status = response.status;
    rec.contentType = response.headers.get("content-type") ?? "";
    records.push(rec);
    if (!response.ok) return withStandardError(response);
    if (/text\/event-stream/i.test(rec.contentType) && response.body) {
      return new Response(response.body.pipeThrough(sseInspector(rec)), {
        status: response.status,
        statusText: response.statusText,
        headers: response.headers,
      });
    }
    inspectJson(rec, await response.clone().text());
    return response;
  };

/**
 * An error answer in OpenAI's form, `{"error": {"message": …}}`: vLLM before 0.10.1 (and some proxies) put the
 * message at the top level (`{"object": "error", "message": …, "code": 400}`), where the SDK does not look, and
 * the user saw only "400 status code (no body)".
 */
const withStandardError = async (response: Response): Promise<Response> => {
  const text = await response.clone().text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return response;
  }
  if (!isRecord(body) || "error" in body || typeof body.message !== "string") return response;
  const error = {
    message: body.message,
    type: typeof body.type === "string" ? body.type : (body.object ?? null),
    param: body.param ?? null,
    code: body.code ?? null,
  };
  const headers = new Headers(response.headers);
  headers.delete("content-length");
  headers.delete("content-encoding");
  return new Response(JSON.stringify({ error }), { status: response.status, statusText: response.statusText, headers });
};

/** A 200 whose body is not a usable chat completion: retried like a 5xx. */
class MalformedAnswer extends Error {
  constructor(
    // Not `status`: the retry classifier reads a numeric `status` as the SDK's HTTP error.
    readonly httpStatus: number,
    readonly head: string,
    why: string,
  ) {
    super(`malformed answer (HTTP ${httpStatus}, ${why}); the body starts: ${head.replace(/\s+/g, " ").trim() || "(empty)"}`);
    this.name = "MalformedAnswer";
  }
}

/** A stream that closed cleanly but before its finish_reason or [DONE]: retried like a dropped connection. */
class CutStream extends Error {
  readonly code = "ECONNRESET";
  constructor(bytes: number) {
    super(`the stream ended without a finish_reason or [DONE] (after ${bytes} bytes)`);
    this.name = "CutStream";
  }
}

/**
 * The verdict on the last answer of an attempt: an AnswerTooLarge whatever its status; for a 200, a MalformedAnswer,
 * a CutStream, or undefined when the answer was whole (then the SDK's own result or error stands).
 */
export const judgeAnswer = (records: readonly WireRecord[], streaming: boolean, failure?: unknown): Error | undefined => {
  const rec = records.at(-1);
  if (rec?.refused) return rec.refused;
  if (!rec || rec.status < 200 || rec.status >= 300) return undefined;
  // The SDK or langchain choked on a 200 before its end (e.g. a `null` event): the answer, not the network.
  // Its message ("Cannot read properties of null") says nothing a user can act on; the body's first bytes do.
  if (failure && !rec.ended) return new MalformedAnswer(rec.status, rec.head, "an event the client could not read");
  if (!streaming) return rec.wellFormed ? undefined : new MalformedAnswer(rec.status, rec.head, "not a chat completion with a choice");
  if (!/text\/event-stream/i.test(rec.contentType))
    return new MalformedAnswer(rec.status, rec.head, `${rec.contentType || "no content-type"} instead of an event stream`);
  // The SDK may stop reading at [DONE]; before it (and without a failure) the SDK is still the judge.
  if (!rec.ended && !rec.sawDone) return undefined;
  if (!rec.sawChoice) return new MalformedAnswer(rec.status, rec.head, "no event carried a choice");
  if (!rec.sawFinish && !rec.sawDone) return new CutStream(rec.bytes);
  return undefined;
};
