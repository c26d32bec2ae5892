import { type AIMessage, HumanMessage } from "@langchain/core/messages";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { startFakeEndpoint, type EndpointModes, type FakeEndpoint } from "../../test/support/fake-endpoint.ts";
import { startFakeOpenAI, type FakeOpenAI } from "../../test/support/fake-openai-server.ts";
import { turnOf } from "../../test/support/turn-of.ts";
import { ConfigError, ModelOutputError } from "../errors.ts";
import { EndpointLimits } from "./endpoint-limits.ts";
import { askStructured } from "./ask.ts";
import { createOpenAIChat } from "./openai-chat.ts";
import { ModelConfig, type StructuredOutputMode } from "./config.ts";
import { OutputMemory } from "./structured-output.ts";
import { extractJson } from "./structured-read.ts";

const Bank = z.object({ skills: z.array(z.object({ id: z.string(), title: z.string(), weight: z.number().min(0).max(1) })) });

let server: FakeOpenAI | undefined;
let endpoint: FakeEndpoint | undefined;
afterEach(async () => {
  await server?.close();
  await endpoint?.close();
  server = undefined;
  endpoint = undefined;
});

const modelOn = (s: FakeOpenAI) =>
  createOpenAIChat({ ...ModelConfig.parse({ model: "gpt-4.1-mini", structuredOutput: "text" }), baseURL: s.url, apiKey: "test" }, { sleep: async () => {} });

const BANK = '{"skills": [{"id": "s1", "title": "Drop on the arm", "weight": 0.7}]}';
const ask = [new HumanMessage("Return the bank.")];

/** A model on an emulated endpoint, with its own memory of accepted ways. */
const onEndpoint = async (modes: EndpointModes, structuredOutput: StructuredOutputMode = "auto", memory = new OutputMemory(), model = "m") => {
  endpoint = await startFakeEndpoint({ reply: BANK, delayMs: 1, ...modes });
  const config = { ...ModelConfig.parse({ model, structuredOutput, maxRetries: 0 }), baseURL: endpoint.url, apiKey: "test" };
  return createOpenAIChat(config, { sleep: async () => {}, limits: new EndpointLimits(), outputMemory: memory, where: "llm.evolver" });
};

/** What asked for the JSON in each request that arrived: response_format, a forced tool, or neither. */
const ways = (e: FakeEndpoint) =>
  e.requests.map(({ body }) => (body.response_format ? "json_schema" : typeof body.tool_choice === "object" ? "tool" : body.tools ? "tools offered" : "text"));

describe("structured output", () => {
  it.each([false, true])("asks each way with the same request body, a fenced json_schema answer read as text (streaming %s)", async (streaming) => {
    const memory = new OutputMemory();
    endpoint = await startFakeEndpoint({ reply: `Here:\n\`\`\`json\n${BANK}\n\`\`\``, delayMs: 1 });
    const bodies = [];
    for (const way of ["json_schema", "tool", "text"] as const) {
      const config = { ...ModelConfig.parse({ model: "m", structuredOutput: way, maxRetries: 0, streaming }), baseURL: endpoint.url, apiKey: "test" };
      const model = createOpenAIChat(config, { sleep: async () => {}, limits: new EndpointLimits(), outputMemory: memory });
      const r = await askStructured(model, ask, Bank, { name: "bank" });
      expect(r.value.skills[0]!.weight).toBe(0.7);
      bodies.push(endpoint.requests.at(-1)!.body);
    }
    const schema = { type: "object", properties: expect.any(Object), required: ["skills"] };
    const base = { model: "m", temperature: 1, max_tokens: 8192, stream: streaming, messages: [{ role: "user", content: "Return the bank." }] };
    const usage = streaming ? { stream_options: { include_usage: true } } : {};
    expect(bodies).toEqual([
      { ...base, ...usage, response_format: { type: "json_schema", json_schema: { name: "bank", schema, strict: false } } },
      {
        ...base,
        ...usage,
        tools: [{ type: "function", function: { name: "bank", description: "Give your complete answer as this function's arguments.", parameters: schema } }],
        tool_choice: { type: "function", function: { name: "bank" } },
      },
      { ...base, ...usage },
    ]);
  });

  it("reads JSON from plain text, a fenced block, or prose around braces", () => {
    expect(extractJson('{"a": 1}')).toEqual({ a: 1 });
    expect(extractJson('Here:\n```json\n{"a": 2}\n```')).toEqual({ a: 2 });
    expect(extractJson('The bank is {"a": 3} as requested.')).toEqual({ a: 3 });
    expect(() => extractJson("no json here")).toThrow(ModelOutputError);
  });

  it("validates with zod and retries once with the error shown to the model", async () => {
    server = await startFakeOpenAI([
      { text: '{"skills": [{"id": "s1", "title": "Drop on the arm", "weight": 1.7}]}' },
      { text: '```json\n{"skills": [{"id": "s1", "title": "Drop on the arm", "weight": 0.7}]}\n```' },
    ]);
    const r = await askStructured(modelOn(server), ask, Bank, { name: "bank" });
    expect(r.value.skills[0]!.weight).toBe(0.7);
    expect(r.turns).toHaveLength(2);
    const retry = server.requests[1]!.body.messages.at(-1)!;
    expect(String(retry.content)).toMatch(/skills\.0\.weight: Too big/);
  });

  it("gives up after the retry with a ModelOutputError", async () => {
    server = await startFakeOpenAI([{ text: "I cannot do that." }, { text: '{"skills": "none"}' }]);
    await expect(askStructured(modelOn(server), ask, Bank, { name: "bank" })).rejects.toThrow(
      /structured output failed after 2 attempt\(s\): the JSON does not match the schema: skills:/,
    );
  });

  it("auto: json_schema refused with a 400, then the forced tool refused, then the prompt alone; the endpoint's answer is kept", async () => {
    const model = await onEndpoint({ jsonSchema: "refuse", forcedTool: "refuse" });
    const first = await askStructured(model, ask, Bank, { name: "bank" });

    expect(first.value.skills[0]!.title).toBe("Drop on the arm");
    // One answered turn: the refusals were the endpoint's, not failures of the role.
    expect(first.turns).toHaveLength(1);
    expect(ways(endpoint!)).toEqual(["json_schema", "tool", "text"]);
    const [schemaReq, toolReq, textReq] = endpoint!.requests.map((r) => r.body);
    expect(schemaReq!.response_format).toEqual({
      type: "json_schema",
      json_schema: { name: "bank", schema: expect.objectContaining({ type: "object", required: ["skills"] }), strict: false },
    });
    expect(schemaReq!.response_format).not.toHaveProperty("json_schema.schema.$schema");
    expect(toolReq!.tool_choice).toEqual({ type: "function", function: { name: "bank" } });
    expect(toolReq!.tools).toEqual([
      { type: "function", function: { name: "bank", description: expect.any(String), parameters: expect.objectContaining({ type: "object" }) } },
    ]);
    expect(textReq).not.toHaveProperty("response_format");
    expect(textReq).not.toHaveProperty("tools");

    await askStructured(model, ask, Bank, { name: "bank" });
    expect(ways(endpoint!)).toEqual(["json_schema", "tool", "text", "text"]);
  });

  it("auto: a server that refuses only json_schema answers through the forced tool, and is asked that way next", async () => {
    const model = await onEndpoint({ jsonSchema: "refuse" });
    const first = await askStructured(model, ask, Bank, { name: "bank" });
    const second = await askStructured(model, ask, Bank, { name: "bank" });

    expect([first.value, second.value]).toEqual([JSON.parse(BANK), JSON.parse(BANK)]);
    expect(first.turns[0]!.toolCalls.map((c) => c.name)).toEqual(["bank"]);
    expect(ways(endpoint!)).toEqual(["json_schema", "tool", "tool"]);
  });

  it("auto: a server that holds json_schema is asked that way every time", async () => {
    const model = await onEndpoint({});
    await askStructured(model, ask, Bank, { name: "bank" });
    await askStructured(model, ask, Bank, { name: "bank" });
    expect(ways(endpoint!)).toEqual(["json_schema", "json_schema"]);
  });

  it("a chosen way that the server refuses is a config error naming the fix", async () => {
    const model = await onEndpoint({ jsonSchema: "refuse" }, "json_schema");
    await expect(askStructured(model, ask, Bank, { name: "bank" })).rejects.toThrow(ConfigError);
    await expect(askStructured(model, ask, Bank, { name: "bank" })).rejects.toThrow(
      /^llm\.evolver\.structuredOutput: .* refused json_schema for m \(got .*400.*\); set llm\.evolver\.structuredOutput: auto$/,
    );
  });

  it("text and tool are sent as chosen; tool calls of the actor never carry a schema", async () => {
    const text = await onEndpoint({}, "text");
    await askStructured(text, ask, Bank, { name: "bank" });
    expect(ways(endpoint!)).toEqual(["text"]);
    await endpoint!.close();
    const tool = await onEndpoint({}, "tool");
    await askStructured(tool, ask, Bank, { name: "bank" });
    await turnOf(tool, ask, [{ name: "add", description: "adds", parameters: { type: "object" } }]);
    expect(ways(endpoint!)).toEqual(["tool", "tools offered"]);
  });

  it("langchain's withStructuredOutput on a role's model sends hexa's request and falls back as the server needs", async () => {
    const model = await onEndpoint({ jsonSchema: "refuse" });
    await askStructured(model, ask, Bank, { name: "bank" });
    const hexa = endpoint!.requests.map((r) => r.body);
    const chat = await onEndpoint({ jsonSchema: "refuse" });
    const json = await chat.withStructuredOutput(Bank, { name: "bank" }).invoke("Return the bank.");
    const tool = await chat.withStructuredOutput(Bank, { name: "bank", includeRaw: true }).invoke("Return the bank.");

    expect(json).toEqual(JSON.parse(BANK));
    expect((tool.raw as AIMessage).tool_calls?.map((c) => c.args)).toEqual([JSON.parse(BANK)]);
    expect(tool.parsed).toEqual(JSON.parse(BANK));
    // The zod schema went out as hexa writes it (not strict, defaults optional): the same bodies, the same fallback.
    expect(endpoint!.requests.map((r) => r.body)).toEqual([...hexa, hexa.at(-1)]);
  });

  it("a model that langchain binds a forced tool for (gpt-4) is asked the same way as any other", async () => {
    const gpt4 = await onEndpoint({}, "auto", new OutputMemory(), "gpt-4");
    expect(await gpt4.withStructuredOutput(Bank, { name: "bank" }).invoke("Return the bank.")).toEqual(JSON.parse(BANK));
    const [body] = endpoint!.requests.map((r) => r.body);
    await endpoint!.close();
    await askStructured(await onEndpoint({}), ask, Bank, { name: "bank" });

    expect(ways(endpoint!)).toEqual(["json_schema"]);
    expect({ ...body, model: "m" }).toEqual(endpoint!.requests[0]!.body);
  });
});
