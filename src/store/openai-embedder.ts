import { type OpenAIClient, OpenAIEmbeddings } from "@langchain/openai";
import { z } from "zod";
import { ConfigError } from "../errors.ts";
import { boundedResponse } from "../util/bounded-response.ts";
import { causeChain, causesOf } from "../util/error-causes.ts";
import type { Embedder } from "./embedding.ts";

/** Longest vector accepted from an endpoint: the largest embedding models answer with a few thousand numbers. */
const MAX_DIMS = 16_384;
/** Texts per request; longer lists go as several requests. */
const BATCH_SIZE = 512;
/**
 * Bytes one number of a vector may take in an answer: the longest float64 literal ("-1.2345678901234567e-308",
 * 24 characters) and its separator, doubled for pretty-printed JSON.
 */
const BYTES_PER_NUMBER = 52;
/** An answer's bytes beside its numbers: each row's keys, and the envelope (model name, usage). */
const ROW_BYTES = 256;
const ENVELOPE_BYTES = 64 * 1024;

/**
 * The most bytes an honest answer to `inputs` texts takes, each vector `dims` numbers long: the length the endpoint
 * answered with before or, before its first answer, MAX_DIMS. A 512-text batch of 3,072-number vectors may take
 * 82 MB; a one-text query before the first answer 0.9 MB.
 */
const answerLimit = (inputs: number, dims: number): number => ENVELOPE_BYTES + inputs * (ROW_BYTES + dims * BYTES_PER_NUMBER);

/** How many texts a request embeds: its body is the SDK's JSON of {model, input}; unreadable, a whole batch. */
const inputsOf = (body: unknown, batchSize: number): number => {
  if (typeof body !== "string") return batchSize;
  try {
    const input = (JSON.parse(body) as { input?: unknown }).input;
    return Array.isArray(input) ? input.length : 1;
  } catch {
    return batchSize;
  }
};

const EmbeddingsAnswer = z.object({
  data: z.array(z.object({ index: z.number().int(), embedding: z.array(z.number()).min(1).max(MAX_DIMS) })),
});

interface Endpoint {
  url: string;
  model: string;
  timeoutMs: number;
  batchSize: number;
}

/** A failed request as the ConfigError that says which setting to check. */
const refusal = (e: unknown, at: Endpoint): ConfigError => {
  const given = causesOf(e).find((c): c is ConfigError => c instanceof ConfigError);
  if (given) return given;
  const status = (e as { status?: unknown }).status;
  if (typeof status === "number") {
    const got = causeChain(e).slice(0, 200);
    return new ConfigError(`embedding: ${at.url} answered HTTP ${status} (got ${got}); check skillIndex.embedding.model and skillIndex.embedding.apiKey`);
  }
  if (e instanceof SyntaxError) return notAnEndpoint(at, e.message);
  const got = (e as Error).name === "TimeoutError" ? `nothing within ${at.timeoutMs} ms` : causeChain(e);
  return new ConfigError(`skillIndex.embedding.baseURL: no answer from ${at.url} (got ${got}); check the URL or use skillIndex.embedding.provider: local`);
};

const notAnEndpoint = (at: Endpoint, got: string) =>
  new ConfigError(
    `skillIndex.embedding.baseURL: ${at.url} is not an OpenAI-compatible embeddings endpoint (got ${got.slice(0, 200)}); point it at the API root`,
  );

/** One answer's vectors in input order: as many as inputs, one per input, all `dims` long (or as long as the first). */
const vectorsOf = (answer: unknown, inputs: number, dims: number, at: Endpoint): number[][] => {
  const parsed = EmbeddingsAnswer.safeParse(answer);
  if (!parsed.success) throw notAnEndpoint(at, typeof answer === "string" ? answer : (JSON.stringify(answer) ?? String(answer)));
  const bad = (what: string) => new ConfigError(`embedding: ${at.url} returned ${what} (got model ${at.model}); check the endpoint`);
  // The API may return rows out of order; index says which input each belongs to.
  const rows = [...parsed.data.data].sort((a, b) => a.index - b.index);
  if (rows.length !== inputs) throw bad(`${rows.length} vectors for ${inputs} texts`);
  if (rows.some((r, i) => r.index !== i)) throw bad(`vectors for inputs ${rows.map((r) => r.index).join(", ")} of ${inputs}`);
  const expected = dims || rows[0]!.embedding.length;
  const odd = rows.find((r) => r.embedding.length !== expected);
  if (odd) throw bad(`a vector of ${odd.embedding.length} numbers where ${expected} were expected`);
  return rows.map((r) => r.embedding);
};

const tooLarge = (at: Endpoint, inputs: number, dims: number, maxBytes: number, bytes: number) =>
  new ConfigError(
    `skillIndex.embedding.baseURL: ${at.url} answered ${inputs} texts with over ${maxBytes.toLocaleString("en")} bytes (got ${bytes.toLocaleString("en")} when it was cut off), more than ${inputs} vectors of ${dims} numbers take; refused before parsing, check the endpoint`,
  );

/**
 * The SDK's fetch with a deadline over the whole answer, body included (an endpoint that accepts the connection and
 * never finishes would otherwise hang the index), the body bounded by `answerLimit` before anything parses it,
 * and no Authorization header when there is no key.
 */
const endpointFetch =
  (at: Endpoint, apiKey: string, dims: () => number) =>
  async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const headers = new Headers(init?.headers);
    if (!apiKey) headers.delete("authorization");
    const deadline = AbortSignal.timeout(at.timeoutMs);
    const inputs = inputsOf(init?.body, at.batchSize);
    const numbers = dims() || MAX_DIMS;
    const maxBytes = answerLimit(inputs, numbers);
    const response = await fetch(input, { ...init, headers, signal: init?.signal ? AbortSignal.any([init.signal, deadline]) : deadline });
    return boundedResponse(response, maxBytes, (bytes) => tooLarge(at, inputs, numbers, maxBytes, bytes));
  };

/** OpenAIEmbeddings that checks each answer before use and remembers the vector length. */
class CheckedEmbeddings extends OpenAIEmbeddings {
  dims = 0;

  constructor(
    private readonly at: Endpoint,
    fields: ConstructorParameters<typeof OpenAIEmbeddings>[0],
  ) {
    super(fields);
  }

  protected override async embeddingWithRetry(request: OpenAIClient.EmbeddingCreateParams): Promise<OpenAIClient.CreateEmbeddingResponse> {
    const answer: unknown = await super.embeddingWithRetry(request).catch((e: unknown) => {
      throw refusal(e, this.at);
    });
    const vectors = vectorsOf(answer, Array.isArray(request.input) ? request.input.length : 1, this.dims, this.at);
    this.dims = vectors[0]!.length;
    return {
      ...(answer as OpenAIClient.CreateEmbeddingResponse),
      data: vectors.map((embedding, index) => ({ object: "embedding" as const, index, embedding })),
    };
  }
}

/** Client for an OpenAI-compatible embeddings endpoint (OpenAI, vLLM, llama.cpp, Ollama's /v1). */
export const openAIEmbedder = (cfg: { model: string; baseURL: string; apiKey: string; timeoutMs?: number; batchSize?: number }): Embedder => {
  const baseURL = cfg.baseURL.replace(/\/+$/, "");
  const at = { url: `${baseURL}/embeddings`, model: cfg.model, timeoutMs: cfg.timeoutMs ?? 60_000, batchSize: cfg.batchSize ?? BATCH_SIZE };
  const client: CheckedEmbeddings = new CheckedEmbeddings(at, {
    model: cfg.model,
    // The SDK needs a key to build a request; endpointFetch removes the header when there is none.
    apiKey: cfg.apiKey || "none",
    batchSize: at.batchSize,
    // Texts are embedded as written: entries are multi-line, and an index must match its queries exactly.
    stripNewLines: false,
    // Floats as the endpoint sends them; base64 would be decoded blind, even from a server that ignored the ask.
    encodingFormat: "float",
    // A failed request is reported at once, naming the setting to check; the deadline is endpointFetch's.
    maxRetries: 0,
    configuration: { baseURL, organization: null, project: null, adminAPIKey: null, fetch: endpointFetch(at, cfg.apiKey, () => client.dims) },
  });
  return {
    get dims() {
      return client.dims;
    },
    embed: (texts) => client.embedDocuments(texts),
  };
};
