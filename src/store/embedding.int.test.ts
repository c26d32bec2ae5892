import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ConfigError } from "../errors.ts";
import { EmbeddingConfig, localEmbedder, localEmbedding, makeEmbedder } from "./embedding.ts";
import { openAIEmbedder } from "./openai-embedder.ts";

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
  const seen: { auth?: string; body: unknown; org?: string | undefined }[] = [];
  const readBody = async (req: IncomingMessage) => {
    let s = "";
    for await (const c of req) s += c;
    return JSON.parse(s) as { model: string; input: string[] };
  };

  /** What the fake server answers for one input; some models misbehave on purpose. */
  let grown = 0;
  const vectorFor = (model: string, text: string, index: number): unknown => {
    if (model === "base64") return Buffer.from(new Float32Array([1, 2, 3]).buffer).toString("base64");
    if (model === "ragged") return Array.from({ length: index + 2 }, () => 1);
    if (model === "empty") return [];
    if (model === "growing") return Array.from({ length: ++grown + 1 }, () => 1);
    return [text.length, index, 1];
  };

  /** Bytes of padding the server wrote for the last "pad:N" text, and whether it has stopped writing. */
  const padding = { sent: 0, done: Promise.resolve() };
  const drainedOrClosed = (res: ServerResponse) =>
    new Promise<void>((resolve) => {
      const done = () => (res.off("drain", done).off("close", done), resolve());
      res.on("drain", done).on("close", done);
    });
  /** The answer with a string field of `bytes` more bytes, written 64 KiB at a time until the client goes away. */
  const sendPadded = async (res: ServerResponse, answer: object, bytes: number) => {
    res.writeHead(200, { "content-type": "application/json" }).write(`${JSON.stringify(answer).slice(0, -1)},"padding":"`);
    padding.sent = 0;
    const chunk = "x".repeat(65_536);
    while (padding.sent < bytes && !res.destroyed) {
      const part = chunk.slice(0, bytes - padding.sent);
      padding.sent += part.length;
      if (!res.write(part)) await drainedOrClosed(res);
    }
    res.end('"}');
  };

  beforeAll(async () => {
    server = createServer((req, res) => {
      void readBody(req).then((body) => {
        seen.push({ auth: req.headers.authorization, body, org: req.headers["openai-organization"] as string | undefined });
        if (body.model === "silent") return; // accepts the request, never answers
        if (body.model === "stalling") return void res.writeHead(200, { "content-type": "application/json" }).write('{"data":['); // never finishes
        if (req.url !== "/v1/embeddings" || body.model === "missing") {
          res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ error: "model not found" }));
          return;
        }
        if (body.model === "garbled") return void res.writeHead(200, { "content-type": "application/json" }).end("{not json");
        if (body.model === "html") return void res.writeHead(200, { "content-type": "text/html" }).end("<html><body>Login required</body></html>");
        // Reverse order on purpose: the client must sort by index.
        const data = body.input
          .map((t, index) => ({ object: "embedding", index: body.model === "twice" ? 0 : index, embedding: vectorFor(body.model, t, index) }))
          .reverse();
        if (body.model === "short") data.pop();
        const pad = /^pad:(\d+)$/.exec(body.input[0] ?? "");
        if (pad) return void (padding.done = sendPadded(res, { object: "list", data, model: body.model }, Number(pad[1])));
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
    expect(seen.at(-1)).toEqual({ auth: "Bearer sk-test", body: { model: "text-embedding-3-small", input: ["a", "bbb"], encoding_format: "float" } });
  });

  it("takes nothing from the OpenAI environment: no organization or project headers, no key", async () => {
    vi.stubEnv("OPENAI_ORG_ID", "org-env");
    vi.stubEnv("OPENAI_ORGANIZATION", "org-env");
    vi.stubEnv("OPENAI_API_KEY", "sk-env");
    try {
      await openAIEmbedder({ model: "m", baseURL, apiKey: "" }).embed(["x"]);
      expect(seen.at(-1)).toMatchObject({ auth: undefined, org: undefined });
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it("sends each text as it is, newlines included, and asks for nothing when given nothing", async () => {
    const e = openAIEmbedder({ model: "m", baseURL, apiKey: "" });
    const before = seen.length;
    expect(await e.embed([])).toEqual([]);
    expect(seen).toHaveLength(before);
    await e.embed(["Roll down the ramp\nWhen to apply: a ramp"]);
    expect(seen.at(-1)?.body).toMatchObject({ input: ["Roll down the ramp\nWhen to apply: a ramp"] });
  });

  it("splits many texts into requests of batchSize and keeps their order", async () => {
    const e = openAIEmbedder({ model: "m", baseURL, apiKey: "", batchSize: 2 });
    const before = seen.length;
    const out = await e.embed(["a", "bb", "ccc", "dddd", "eeeee"]);
    expect(out.map((v) => v[0])).toEqual([1, 2, 3, 4, 5]);
    expect(seen.slice(before).map((s) => (s.body as { input: string[] }).input)).toEqual([["a", "bb"], ["ccc", "dddd"], ["eeeee"]]);
  });

  it.each([
    ["short", /^embedding: http:\S+\/embeddings returned 1 vectors for 2 texts \(got model short\); check the endpoint$/],
    ["ragged", /^embedding: http:\S+\/embeddings returned a vector of 3 numbers where 2 were expected \(got model ragged\); check the endpoint$/],
    ["twice", /^embedding: http:\S+\/embeddings returned vectors for inputs 0, 0 of 2 \(got model twice\); check the endpoint$/],
    ["empty", /^skillIndex\.embedding\.baseURL: http:\S+\/embeddings is not an OpenAI-compatible embeddings endpoint \(got .*\); point it at the API root$/],
    ["base64", /^skillIndex\.embedding\.baseURL: http:\S+\/embeddings is not an OpenAI-compatible embeddings endpoint \(got .*\); point it at the API root$/],
    [
      "garbled",
      /^skillIndex\.embedding\.baseURL: http:\S+\/embeddings is not an OpenAI-compatible embeddings endpoint \(got .*JSON.*\); point it at the API root$/,
    ],
    [
      "html",
      /^skillIndex\.embedding\.baseURL: http:\S+\/embeddings is not an OpenAI-compatible embeddings endpoint \(got .*Login required.*\); point it at the API root$/,
    ],
  ])("refuses a %s answer with a ConfigError naming the endpoint", async (model, message) => {
    const err = await openAIEmbedder({ model, baseURL, apiKey: "sk-secret" })
      .embed(["x", "yy"])
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toMatch(message);
    expect((err as Error).message).not.toContain("sk-secret");
  });

  it("refuses an endpoint whose vector length changes from one answer to the next", async () => {
    const e = openAIEmbedder({ model: "growing", baseURL, apiKey: "" });
    expect(await e.embed(["x"])).toEqual([[1, 1]]);
    expect(e.dims).toBe(2);
    await expect(e.embed(["y"])).rejects.toThrow(/^embedding: http:\S+\/embeddings returned a vector of 3 numbers where 2 were expected \(got model growing\)/);
  });

  it("turns HTTP errors and unreachable endpoints into ConfigError", async () => {
    const missing = await openAIEmbedder({ model: "missing", baseURL, apiKey: "" })
      .embed(["x"])
      .catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(ConfigError);
    expect((missing as Error).message).toMatch(
      /^embedding: http:\S+\/embeddings answered HTTP 404 \(got .*model not found.*\); check skillIndex\.embedding\.model and skillIndex\.embedding\.apiKey$/,
    );
    expect(seen.at(-1)?.auth).toBeUndefined();
    const unreachable = await openAIEmbedder({ model: "m", baseURL: "http://127.0.0.1:9/v1", apiKey: "" })
      .embed(["x"])
      .catch((e: unknown) => e);
    expect(unreachable).toBeInstanceOf(ConfigError);
    expect((unreachable as Error).message).toMatch(
      /^skillIndex\.embedding\.baseURL: no answer from http:\/\/127\.0\.0\.1:9\/v1\/embeddings \(got .*fetch failed.*\)/,
    );
  });

  it("gives up on an endpoint that never answers with a ConfigError naming the deadline", async () => {
    const err = await openAIEmbedder({ model: "silent", baseURL, apiKey: "", timeoutMs: 200 })
      .embed(["x"])
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect(String(err)).toMatch(/^ConfigError: skillIndex\.embedding\.baseURL: no answer from http:\S+\/embeddings \(got nothing within 200 ms\)/);
  });

  it("gives up on an answer whose body never ends, with the same deadline", async () => {
    const err = await openAIEmbedder({ model: "stalling", baseURL, apiKey: "", timeoutMs: 200 })
      .embed(["x"])
      .catch((e: unknown) => e);
    expect(String(err)).toMatch(/^ConfigError: skillIndex\.embedding\.baseURL: no answer from http:\S+\/embeddings \(got nothing within 200 ms\)/);
  });

  it("refuses an answer larger than that many vectors can be before parsing it, and stops reading it", async () => {
    const flood = 32 * 1024 * 1024;
    const err = await openAIEmbedder({ model: "m", baseURL, apiKey: "" })
      .embed([`pad:${flood}`])
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as Error).message).toMatch(
      /^skillIndex\.embedding\.baseURL: http:\S+\/embeddings answered 1 texts with over 917,760 bytes \(got [\d,]+ when it was cut off\), more than 1 vectors of 16384 numbers take; refused before parsing, check the endpoint$/,
    );
    await padding.done;
    expect(padding.sent).toBeLessThan(flood);
  });

  it("bounds an answer by the vector length the endpoint answered with before", async () => {
    const e = openAIEmbedder({ model: "m", baseURL, apiKey: "" });
    expect(await e.embed(["a"])).toEqual([[1, 0, 1]]);
    await expect(e.embed(["pad:200000"])).rejects.toThrow(/ answered 1 texts with over 65,948 bytes .* more than 1 vectors of 3 numbers take;/);
    // The same answer is within what one vector of unknown length may take.
    expect(await openAIEmbedder({ model: "m", baseURL, apiKey: "" }).embed(["pad:200000"])).toEqual([[10, 0, 1]]);
  });

  it("makeEmbedder picks the provider from config", async () => {
    expect(makeEmbedder(EmbeddingConfig.parse({ provider: "local" })).dims).toBe(384);
    const remote = makeEmbedder(EmbeddingConfig.parse({ provider: "openai", model: "m", baseURL }));
    expect(await remote.embed(["hi"])).toEqual([[2, 0, 1]]);
  });
});
