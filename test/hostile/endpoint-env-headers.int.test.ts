import { HumanMessage } from "@langchain/core/messages";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { turnOf } from "../support/turn-of.ts";
import { ModelConfig } from "../../src/llm/config.ts";
import { EndpointLimits } from "../../src/llm/endpoint-limits.ts";
import { createOpenAIChat } from "../../src/llm/openai-chat.ts";
import { openAIEmbedder } from "../../src/store/openai-embedder.ts";

/**
 * The OpenAI SDK and langchain fill unset client options from the environment: organization and project headers,
 * an admin key that replaces the Authorization header, a base URL. A model request must carry only what the hexa
 * config says (docs/security.md): with every such variable set to a canary, the local endpoint named in the config
 * gets each request, with the config's key and no header that holds a canary.
 */

const CANARY = "CANARY-env-4b1e";
const ENV_CANARIES = {
  OPENAI_ORG_ID: `org-${CANARY}`,
  OPENAI_ORGANIZATION: `org-${CANARY}`,
  OPENAI_PROJECT_ID: `proj-${CANARY}`,
  OPENAI_ADMIN_KEY: `admin-${CANARY}`,
  // Port 9 (discard): a request sent there never reaches the recording server.
  OPENAI_BASE_URL: "http://127.0.0.1:9/v1",
  OPENAI_API_BASE: "http://127.0.0.1:9/v1",
};

const seen: { path: string; headers: IncomingHttpHeaders }[] = [];
let server: Server;
let baseURL: string;

const completion = {
  id: "c1",
  object: "chat.completion",
  created: 1,
  model: "m",
  choices: [{ index: 0, message: { role: "assistant", content: "ok" }, finish_reason: "stop" }],
};
const embeddings = { object: "list", model: "e", data: [{ object: "embedding", index: 0, embedding: [1, 2, 3] }] };

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume().on("end", () => {
      seen.push({ path: req.url ?? "", headers: req.headers });
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(req.url?.endsWith("/embeddings") ? embeddings : completion));
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(() => new Promise<void>((r) => (server.closeAllConnections(), server.close(() => r()))));
beforeAll(() => {
  for (const [name, value] of Object.entries(ENV_CANARIES)) vi.stubEnv(name, value);
});
afterAll(() => vi.unstubAllEnvs());
afterEach(() => {
  seen.length = 0;
});

/** Header names and values of the one request the server got, after checking it went to the config's path. */
const onlyRequest = (path: string): IncomingHttpHeaders => {
  expect(seen.map((s) => s.path)).toEqual([path]);
  return seen[0]!.headers;
};

const canaryHeaders = (headers: IncomingHttpHeaders) =>
  Object.entries(headers).filter(([name, value]) => /^openai-(organization|project)$/.test(name) || String(value).includes(CANARY));

describe("OpenAI environment variables set to canaries", () => {
  it("the chat client sends the config's key to the config's URL and no header from the environment", async () => {
    const config = { ...ModelConfig.parse({ model: "m" }), baseURL, apiKey: "sk-config" };
    const turn = await turnOf(createOpenAIChat(config, { limits: new EndpointLimits(), sleep: async () => {} }), [new HumanMessage("hi")]);
    expect(turn.text).toBe("ok");
    const headers = onlyRequest("/v1/chat/completions");
    expect(headers.authorization).toBe("Bearer sk-config");
    expect(canaryHeaders(headers)).toEqual([]);
  });

  it.each([
    ["a key", "sk-config", "Bearer sk-config"],
    ["no key", "", undefined],
  ])("the embeddings client with %s sends only that to the config's URL and no header from the environment", async (_, apiKey, auth) => {
    expect(await openAIEmbedder({ model: "e", baseURL, apiKey }).embed(["x"])).toEqual([[1, 2, 3]]);
    const headers = onlyRequest("/v1/embeddings");
    expect(headers.authorization).toBe(auth);
    expect(canaryHeaders(headers)).toEqual([]);
  });
});
