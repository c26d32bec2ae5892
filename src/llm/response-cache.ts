import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { ConfigError } from "../errors.ts";
import { sha256Hex } from "./canonical-hash.ts";
import type { AssistantTurn, ChatModel, Message, OutputRequest, ToolSpec } from "./chat-model.ts";
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
    messages,
    tools,
    // Absent, not undefined, without a schema: keys of earlier entries stay valid.
    ...(output ? { output } : {}),
  });

/** One JSON file per request key in `dir`, written whole (temp file + rename) so a crash leaves no torn entry. */
export const dirCache = (dir: string): ResponseCache => {
  mkdirSync(dir, { recursive: true });
  const pathOf = (key: string) => join(dir, `${key}.json`);
  return {
    get: (key) => {
      const path = pathOf(key);
      if (!existsSync(path)) return undefined;
      const parsed = CacheEntry.safeParse(JSON.parse(readFileSync(path, "utf8")));
      if (!parsed.success || parsed.data.key !== key) {
        throw new ConfigError(`${path}: not a response-cache entry (schemaVersion 1); delete it or the cache directory`);
      }
      return parsed.data.turn;
    },
    set: (key, turn) => {
      const path = pathOf(key);
      writeFileSync(`${path}.tmp`, JSON.stringify({ schemaVersion: 1, key, turn }));
      renameSync(`${path}.tmp`, path);
    },
  };
};

/** Answers a request seen before from the cache, with no HTTP call; otherwise asks `inner` and stores the answer. */
export const withCache = (inner: ChatModel, cache: ResponseCache, sampling: CacheSampling): ChatModel => ({
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
