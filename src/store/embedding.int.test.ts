import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConfigError } from "../errors.ts";
import { EmbeddingConfig, localEmbedder, localEmbedding, makeEmbedder, openAIEmbedder } from "./embedding.ts";

const dot = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * b[i]!, 0);

describe("localEmbedding", () => {
  it("is deterministic and unit length", () => {
    const a = localEmbedding("Launch the ball off the ramp", 384);
    expect(a).toEqual(localEmbedding("Launch the ball off the ramp", 384));
    expect(a).toHaveLength(384);
    expect(Math.hypot(...a)).toBeCloseTo(1, 10);
    expect(localEmbedding("", 64).every((x) => x === 0)).toBe(true);
  });

  it("scores similar texts above unrelated ones", async () => {
    const e = localEmbedder(384);
    const [q, near, far] = await e.embed([
      "place a heavy ball high on the ramp so it rolls down and knocks the green ball into the basket",
      "a heavy ball dropped onto the ramp rolls down and knocks the green ball toward the basket",
      "the evolver prunes mistakes whose weight falls below the threshold after each round",
    ]);
    expect(dot(q!, near!)).toBeGreaterThan(dot(q!, far!) + 0.2);
    // Trigrams make inflections overlap without a stemmer.
    expect(dot(localEmbedding("bouncing", 384), localEmbedding("bounce", 384))).toBeGreaterThan(0.3);
  });
});

describe("openAIEmbedder", () => {
  let server: Server;
  let baseURL: string;
  const seen: { auth?: string; body: unknown }[] = [];
  const readBody = async (req: IncomingMessage) => {
    let s = "";
    for await (const c of req) s += c;
    return JSON.parse(s) as { model: string; input: string[] };
  };

  beforeAll(async () => {
    server = createServer((req, res) => {
      void readBody(req).then((body) => {
        seen.push({ auth: req.headers.authorization, body });
        if (body.model === "silent") return; // accepts the request, never answers
        if (req.url !== "/v1/embeddings" || body.model === "missing") {
          res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ error: "model not found" }));
          return;
        }
        // Reverse order on purpose: the client must sort by index.
        const data = body.input.map((t, index) => ({ object: "embedding", index, embedding: [t.length, index, 1] })).reverse();
        res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ object: "list", data, model: body.model }));
      });
    });
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  });
  afterAll(() => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))));

  it("posts {model, input} to {baseURL}/embeddings and returns vectors in input order", async () => {
    const e = openAIEmbedder({ model: "text-embedding-3-small", baseURL: `${baseURL}/`, apiKey: "sk-test" });
    expect(e.dims).toBe(0);
    const out = await e.embed(["a", "bbb"]);
    expect(out).toEqual([
      [1, 0, 1],
      [3, 1, 1],
    ]);
    expect(e.dims).toBe(3);
    expect(seen.at(-1)).toEqual({ auth: "Bearer sk-test", body: { model: "text-embedding-3-small", input: ["a", "bbb"] } });
  });

  it("turns HTTP errors and unreachable endpoints into ConfigError", async () => {
    await expect(openAIEmbedder({ model: "missing", baseURL, apiKey: "" }).embed(["x"])).rejects.toThrow(/HTTP 404/);
    expect(seen.at(-1)?.auth).toBeUndefined();
    await expect(openAIEmbedder({ model: "m", baseURL: "http://127.0.0.1:9/v1", apiKey: "" }).embed(["x"])).rejects.toBeInstanceOf(ConfigError);
  });

  it("gives up on an endpoint that never answers with a ConfigError naming the deadline", async () => {
    const err = await openAIEmbedder({ model: "silent", baseURL, apiKey: "", timeoutMs: 200 })
      .embed(["x"])
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect(String(err)).toMatch(/^ConfigError: embedding\.baseURL: no answer from http:\S+\/embeddings \(got nothing within 200 ms\)/);
  });

  it("makeEmbedder picks the provider from config", async () => {
    expect(makeEmbedder(EmbeddingConfig.parse({ provider: "local" })).dims).toBe(384);
    const remote = makeEmbedder(EmbeddingConfig.parse({ provider: "openai", model: "m", baseURL }));
    expect(await remote.embed(["hi"])).toEqual([[2, 0, 1]]);
  });
});
