import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { sha256Hex } from "../util/canonical-json.ts";
import { writeAtomic } from "../util/write-atomic.ts";
import type { AssistantTurn, Wire, Message, OutputRequest, ToolSpec } from "./chat-model.ts";
import { recordedMessages } from "./content-parts.ts";
import { AssistantTurnSchema } from "./turn-schema.ts";

export interface ResponseCache {
  get(key: string): AssistantTurn | undefined;
  set(key: string, turn: AssistantTurn): void;
}

/** What else, besides messages and tools, changes the answer. */
export interface CacheSampling {
  temperature: number | null;
  maxOutputTokens: number | null;
  toolChoice?: string;
  extraBody?: Record<string, unknown>;
  /** Two servers may serve different models under one name: the endpoint is part of the key. */
  baseURL?: string;
}

const CacheEntry = z.object({ schemaVersion: z.literal(1), key: z.string(), turn: AssistantTurnSchema });

/** sha256 of the canonical request: model, sampling, messages, tools and the answer's schema (when one is asked for). */
export const requestKey = (model: string, sampling: CacheSampling, messages: readonly Message[], tools: readonly ToolSpec[], output?: OutputRequest) =>
  sha256Hex({
    model,
    endpoint: sampling.baseURL ?? "",
    temperature: sampling.temperature,
    maxOutputTokens: sampling.maxOutputTokens,
    // Only when set: keys made before these settings existed stay the same.
    ...(sampling.toolChoice && sampling.toolChoice !== "auto" ? { toolChoice: sampling.toolChoice } : {}),
    ...(sampling.extraBody && Object.keys(sampling.extraBody).length > 0 ? { extraBody: sampling.extraBody } : {}),
    // Media parts by their hash and size (content-parts.ts); text-only messages as they are.
    messages: recordedMessages(messages),
    tools,
    // Absent, not undefined, without a schema: keys of earlier entries stay valid.
    ...(output ? { output } : {}),
  });

/** The turn a cache file holds for `key`, or why it holds none. */
const readEntry = (text: string, key: string): { turn: AssistantTurn } | { problem: string } => {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    return { problem: `not whole JSON (${(e as Error).message})` };
  }
  const parsed = CacheEntry.safeParse(raw);
  if (!parsed.success)
    return {
      problem: `not a response-cache entry of schemaVersion 1 (${parsed.error.issues[0]?.path.join(".") || "entry"}: ${parsed.error.issues[0]?.message})`,
    };
  if (parsed.data.key !== key) return { problem: `holds the answer of another request (key ${parsed.data.key.slice(0, 12)}…)` };
  return { turn: parsed.data.turn };
};

const readIfThere = (path: string): string | undefined => {
  try {
    return readFileSync(path, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw e;
  }
};

/**
 * One JSON file per request key in `dir`, each written atomically (src/util/write-atomic.ts), so processes sharing
 * the directory (`hexa compare --parallel`) never write through one file and a reader sees a whole entry or none.
 * A damaged entry (torn, hand-edited, another version) is a miss: `warn` names the file, the request goes to the
 * endpoint and its answer replaces the file.
 */
export const dirCache = (dir: string, warn: (message: string) => void = (m) => process.stderr.write(`warning: ${m}\n`)): ResponseCache => {
  mkdirSync(dir, { recursive: true });
  const pathOf = (key: string) => join(dir, `${key}.json`);
  return {
    get: (key) => {
      const path = pathOf(key);
      let text: string | undefined;
      try {
        text = readIfThere(path);
      } catch (e) {
        warn(`${path}: cannot read this response-cache entry (${(e as Error).message}); asking the endpoint instead`);
        return undefined;
      }
      if (text === undefined) return undefined;
      const read = readEntry(text, key);
      if ("turn" in read) return read.turn;
      warn(`${path}: ${read.problem}; treated as a miss, the answer is asked for again and replaces the file`);
      return undefined;
    },
    set: (key, turn) => writeAtomic(pathOf(key), JSON.stringify({ schemaVersion: 1, key, turn })),
  };
};

/** Answers a request seen before from the cache, with no HTTP call; otherwise asks `inner` and stores the answer. */
export const withCache = (inner: Wire, cache: ResponseCache, sampling: CacheSampling): Wire => ({
  name: inner.name,
  invoke: async (messages, tools, output) => {
    const key = requestKey(inner.name, sampling, messages, tools, output);
    const hit = cache.get(key);
    if (hit) return { ...hit, latencyMs: 0, fromCache: true };
    const turn = await inner.invoke(messages, tools, output);
    cache.set(key, turn);
    return turn;
  },
});
