import { z } from "zod";
import { secret } from "../util/secret-fields.ts";

/** Turns texts into vectors for the skill index; Chroma gets no embedding function of its own (no download). */
export interface Embedder {
  /** Vector length; 0 until a remote endpoint has answered once. */
  readonly dims: number;
  embed(texts: string[]): Promise<number[][]>;
}

export const EmbeddingConfig = z.discriminatedUnion("provider", [
  z.strictObject({
    provider: z.literal("local").describe("hashed word and character-trigram features; no download, deterministic"),
    dims: z.number().int().min(16).max(4096).default(384).describe("vector length"),
  }),
  z.strictObject({
    provider: z.literal("openai").describe("an OpenAI-compatible POST {baseURL}/embeddings endpoint"),
    model: z.string().min(1).describe("embedding model name sent to the endpoint"),
    baseURL: z.string().url().default("https://api.openai.com/v1").describe("endpoint root, without /embeddings"),
    apiKey: secret(z.string()).default("").describe("bearer token; empty: HEXA_EMBEDDING_API_KEY or OPENAI_API_KEY in a run, else no Authorization header"),
  }),
]);
export type EmbeddingConfig = z.infer<typeof EmbeddingConfig>;

/** FNV-1a, 32 bit: stable across platforms and runs, so an index built yesterday still matches today's queries. */
const fnv1a = (s: string): number => {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
};

const words = (text: string): string[] =>
  text
    .toLowerCase()
    .normalize("NFKD")
    .match(/[\p{L}\p{N}]+/gu) ?? [];

/**
 * Hashed bag of words plus character trigrams, L2-normalised. Words carry topic; trigrams make "bounce" and
 * "bouncing" overlap without a stemmer. The sign bit of a second hash spreads collisions around zero.
 */
export const localEmbedding = (text: string, dims: number): number[] => {
  const v = new Array<number>(dims).fill(0);
  const add = (feature: string, w: number) => {
    const h = fnv1a(feature);
    v[h % dims]! += (fnv1a(`±${feature}`) & 1 ? 1 : -1) * w;
  };
  for (const word of words(text)) {
    add(`w:${word}`, 1);
    const padded = `^${word}$`;
    for (let i = 0; i + 3 <= padded.length; i++) add(`t:${padded.slice(i, i + 3)}`, 0.5);
  }
  const norm = Math.hypot(...v);
  return norm === 0 ? v : v.map((x) => x / norm);
};

export const localEmbedder = (dims = 384): Embedder => ({
  dims,
  embed: async (texts) => texts.map((t) => localEmbedding(t, dims)),
});

type EndpointConfig = Extract<EmbeddingConfig, { provider: "openai" }>;

/**
 * The endpoint's client (openai-embedder.ts), its module and langchain's loaded with the first texts to embed: a
 * command that reads a run's config never pays for them.
 */
const endpointEmbedder = (cfg: EndpointConfig): Embedder => {
  let loaded: Embedder | undefined;
  let client: Promise<Embedder> | undefined;
  return {
    get dims() {
      return loaded?.dims ?? 0;
    },
    embed: async (texts) => {
      client ??= import("./openai-embedder.ts").then((m) => (loaded = m.openAIEmbedder(cfg)));
      return (await client).embed(texts);
    },
  };
};

export const makeEmbedder = (cfg: EmbeddingConfig): Embedder => (cfg.provider === "local" ? localEmbedder(cfg.dims) : endpointEmbedder(cfg));
