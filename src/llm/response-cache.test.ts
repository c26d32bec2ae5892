import { mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { turnOf } from "../../test/support/turn-of.ts";
import { HumanMessage } from "@langchain/core/messages";
import { startFakeOpenAI, type FakeOpenAI } from "../../test/support/fake-openai-server.ts";
import type { Message, ToolSpec } from "./chat-model.ts";
import { ModelConfig } from "./config.ts";
import { EndpointLimits } from "./endpoint-limits.ts";
import { bareParts, HexaChatOpenAI } from "./openai-chat.ts";
import { type CacheSampling, dirCache, requestKey, withCache } from "./response-cache.ts";

const tool: ToolSpec = { name: "simulate", description: "run", parameters: { type: "object", properties: {} } };
const ask: Message[] = [{ role: "user", content: "Solve seed 3." }];
const request = [new HumanMessage("Solve seed 3.")];
const sampling = { temperature: 1, maxOutputTokens: 100 };

let server: FakeOpenAI | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const setup = async () => {
  server = await startFakeOpenAI([
    { text: "first", toolCalls: [{ name: "simulate", args: { x: 1 } }], usage: { prompt: 40, completion: 9, cached: 8 }, model: "m-2025-01-01" },
    { text: "second" },
    { text: "third" },
  ]);
  const dir = mkdtempSync(join(tmpdir(), "hexa-cache-"));
  const parts = bareParts({ ...ModelConfig.parse({ model: "m" }), baseURL: server.url, apiKey: "k" }, { limits: new EndpointLimits() });
  /** The endpoint's model with a cache on `dir` (opened anew, as after a restart) around each exchange. */
  const cached = (s: CacheSampling) => {
    const cache = dirCache(dir);
    return new HexaChatOpenAI({ ...parts, layers: (wire) => withCache(wire, cache, s) });
  };
  return { dir, cached, model: cached(sampling), server };
};

describe("withCache", () => {
  it("answers an identical request from the cache with no HTTP call", async () => {
    const { model, server, dir } = await setup();
    const first = await turnOf(model, request, [tool]);
    const again = await turnOf(model, [new HumanMessage("Solve seed 3.")], [structuredClone(tool)]);

    expect(server.requests).toHaveLength(1);
    expect(first.fromCache).toBe(false);
    expect(again).toEqual({ ...first, latencyMs: 0, fromCache: true });
    expect(readdirSync(dir)).toEqual([`${requestKey("m", sampling, ask, [tool])}.json`]);
  });

  it("misses on different messages, tools or sampling", async () => {
    const { model, cached, server } = await setup();
    await turnOf(model, request, [tool]);
    const other = await turnOf(model, [new HumanMessage("Solve seed 4.")], [tool]);
    const hotter = await turnOf(cached({ ...sampling, temperature: 0.2 }), request, [tool]);

    expect([other.text, other.fromCache]).toEqual(["second", false]);
    expect([hotter.text, hotter.fromCache]).toEqual(["third", false]);
    expect(server.requests).toHaveLength(3);
    expect(requestKey("m", sampling, ask, [])).not.toBe(requestKey("m", sampling, ask, [tool]));
    expect(requestKey("m", sampling, ask, [tool])).not.toBe(requestKey("other", sampling, ask, [tool]));
  });

  it("survives a restart: a new cache on the same directory hits", async () => {
    const { model, cached, server } = await setup();
    const first = await turnOf(model, request, [tool]);
    const reopened = await turnOf(cached(sampling), request, [tool]);
    expect(reopened).toEqual({ ...first, latencyMs: 0, fromCache: true });
    expect(server.requests).toHaveLength(1);
  });

  it("a file that is not an entry of this request is a miss, with a warning naming it", () => {
    const dir = mkdtempSync(join(tmpdir(), "hexa-cache-"));
    const key = requestKey("m", sampling, ask, []);
    const warnings: string[] = [];
    writeFileSync(join(dir, `${key}.json`), JSON.stringify({ schemaVersion: 2, key }));
    expect(dirCache(dir, (m) => warnings.push(m)).get(key)).toBeUndefined();
    const other = requestKey("m", sampling, ask, [tool]);
    writeFileSync(
      join(dir, `${other}.json`),
      JSON.stringify({
        schemaVersion: 1,
        key,
        turn: { text: "", toolCalls: [], usage: { input: 0, output: 0, cached: 0 }, model: "m", latencyMs: 0, fromCache: false },
      }),
    );
    expect(dirCache(dir, (m) => warnings.push(m)).get(other)).toBeUndefined();
    expect(warnings).toEqual([
      expect.stringMatching(new RegExp(`^${join(dir, key)}\\.json: not a response-cache entry of schemaVersion 1 \\(schemaVersion`)),
      expect.stringMatching(new RegExp(`^${join(dir, other)}\\.json: holds the answer of another request`)),
    ]);
  });
});
