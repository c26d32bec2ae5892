import { HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
import { afterEach, describe, expect, it, vi } from "vitest";
import { turnOf } from "../../test/support/turn-of.ts";
import { startFakeOpenAI, type FakeOpenAI, type ScriptItem } from "../../test/support/fake-openai-server.ts";
import { answerMessage } from "./agent-messages.ts";
import type { AssistantTurn, ToolCall, ToolSpec } from "./chat-model.ts";
import { ModelConfig } from "./config.ts";
import { EndpointLimits } from "./endpoint-limits.ts";
import { bareParts, createOpenAIChat, HexaChatOpenAI } from "./openai-chat.ts";

const simulate: ToolSpec = {
  name: "simulate",
  description: "Place the red ball and run the world.",
  parameters: { type: "object", properties: { x: { type: "number" }, y: { type: "number" } }, required: ["x", "y"] },
};
const ask = [new SystemMessage("You solve physics puzzles."), new HumanMessage("Solve catapult seed 7.")];

let server: FakeOpenAI | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const chat = async (script: ScriptItem[], options: Partial<ModelConfig> = {}) => {
  server = await startFakeOpenAI(script);
  const config = { ...ModelConfig.parse({ model: "gpt-test", ...options }), baseURL: server.url, apiKey: "test-key" };
  return createOpenAIChat(config, { sleep: async () => {}, random: () => 0.5, limits: new EndpointLimits() });
};

const withoutTiming = ({ latencyMs: _latency, ...rest }: AssistantTurn) => rest;

describe("createOpenAIChat against a local OpenAI-compatible server", () => {
  it("round-trips a tool call: arguments parsed, id kept, the reported model returned", async () => {
    const model = await chat([
      { text: "Try the left edge.", toolCalls: [{ id: "call_abc", name: "simulate", args: { x: -2.5, y: 3 } }], model: "gpt-test-2025-01-01" },
    ]);
    const turn = await turnOf(model, ask, [simulate]);

    expect(turn.text).toBe("Try the left edge.");
    expect(turn.toolCalls).toEqual([{ id: "call_abc", name: "simulate", args: { x: -2.5, y: 3 }, rawArgs: '{"x":-2.5,"y":3}' }]);
    expect(turn.model).toBe("gpt-test-2025-01-01");
    expect(turn.fromCache).toBe(false);
    expect(model.model).toBe("gpt-test");

    const body = server!.requests[0]!.body;
    expect(body.model).toBe("gpt-test");
    expect(body.tools).toEqual([{ type: "function", function: { name: "simulate", description: simulate.description, parameters: simulate.parameters } }]);
    expect(body.tool_choice).toBe("auto");
    expect(body.stream).toBe(false);
    expect(body.temperature).toBe(1);
    expect(body.max_tokens).toBe(8192);
  });

  it("sends a whole conversation in the OpenAI wire form, a malformed earlier call as {}, a call-only message with content null", async () => {
    const model = await chat([{ text: "Done." }]);
    // Earlier answers as `ask` returns them (answerMessage), each followed by its tool's result.
    const answered = (text: string, toolCalls: ToolCall[]) =>
      answerMessage({ text, toolCalls, usage: { input: 0, output: 0, cached: 0 }, model: "gpt-test", latencyMs: 0, fromCache: false });
    const history = [
      ...ask,
      answered("First try.", [{ id: "call_1", name: "simulate", args: { x: 1, y: 2 }, rawArgs: '{"x":1,"y":2}' }]),
      new ToolMessage({ content: "no success; the ball fell short", tool_call_id: "call_1", name: "simulate" }),
      answered("", [{ id: "call_2", name: "simulate", args: {}, rawArgs: '{"x":', argsError: "bad" }]),
      new ToolMessage({ content: "arguments are not valid JSON", tool_call_id: "call_2", name: "simulate" }),
      new HumanMessage("Keep going."),
    ];
    await turnOf(model, history, [simulate]);

    expect(server!.requests[0]!.body.messages).toEqual([
      { role: "system", content: "You solve physics puzzles." },
      { role: "user", content: "Solve catapult seed 7." },
      {
        role: "assistant",
        content: "First try.",
        tool_calls: [{ id: "call_1", type: "function", function: { name: "simulate", arguments: '{"x":1,"y":2}' } }],
      },
      { role: "tool", content: "no success; the ball fell short", tool_call_id: "call_1", name: "simulate" },
      { role: "assistant", content: null, tool_calls: [{ id: "call_2", type: "function", function: { name: "simulate", arguments: "{}" } }] },
      { role: "tool", content: "arguments are not valid JSON", tool_call_id: "call_2", name: "simulate" },
      { role: "user", content: "Keep going." },
    ]);
  });

  it("returns a text-only answer, and offers no tools (nor tool_choice) when there are none", async () => {
    const model = await chat([{ text: "The ball must land in the basket." }]);
    const turn = await turnOf(model, ask);

    expect(turn.text).toBe("The ball must land in the basket.");
    expect(turn.toolCalls).toEqual([]);
    expect(turn.model).toBe("gpt-test");
    const body = server!.requests[0]!.body;
    expect(body.tools).toBeUndefined();
    expect(body.tool_choice).toBeUndefined();
  });

  it("returns several tool calls of one answer in order, an unknown tool name included", async () => {
    const model = await chat([
      { toolCalls: [{ name: "simulate", args: { x: 0, y: 1 } }, { name: "get_level_state" }, { name: "no_such_tool", args: { q: "?" } }] },
    ]);
    const turn = await turnOf(model, ask, [simulate]);

    expect(turn.text).toBe("");
    expect(turn.toolCalls.map((c) => [c.id, c.name, c.args])).toEqual([
      ["call_1_0", "simulate", { x: 0, y: 1 }],
      ["call_1_1", "get_level_state", {}],
      ["call_1_2", "no_such_tool", { q: "?" }],
    ]);
    expect(turn.toolCalls.every((c) => c.argsError === undefined)).toBe(true);
  });

  it.each([false, true])("turns malformed arguments into args {} and an argsError, never a throw (streaming %s)", async (streaming) => {
    const model = await chat([{ text: "Trying.", toolCalls: [{ name: "simulate", args: { x: 1.25, y: 4 } }], malformedArgs: true }], { streaming });
    // langchain-core's AIMessage warns (misleadingly, about package versions) when every wire tool call is
    // invalid; nothing may be printed for a malformed-arguments turn.
    const printed: unknown[] = [];
    const spies = (["warn", "log", "error", "info"] as const).map((k) => vi.spyOn(console, k).mockImplementation((message) => void printed.push(message)));
    const turn = await turnOf(model, ask, [simulate]).finally(() => spies.forEach((s) => s.mockRestore()));
    expect(printed).toEqual([]);

    expect(turn.toolCalls).toHaveLength(1);
    const call = turn.toolCalls[0]!;
    expect(call.name).toBe("simulate");
    expect(call.args).toEqual({});
    expect(call.rawArgs).toBe('{"x":1.2');
    expect(call.argsError).toMatch(/^simulate: arguments are not valid JSON, .* \(got "\{\\"x\\":1\.2"\); send one JSON object$/);
  });

  it("gives the same turn streaming and not streaming, with usage from the stream's last chunk", async () => {
    const item: ScriptItem = {
      text: "Two probes at once.",
      toolCalls: [
        { name: "simulate", args: { x: 1, y: 2 } },
        { name: "simulate", args: { x: -1, y: 2 } },
      ],
      usage: { prompt: 1200, completion: 80, cached: 1000 },
      model: "gpt-test-0613",
    };
    const plain = await turnOf(await chat([item]), ask, [simulate]);
    expect(server!.requests[0]!.body.stream).toBe(false);
    await server!.close();

    const streamed = await turnOf(await chat([item], { streaming: true }), ask, [simulate]);
    const body = server!.requests[0]!.body;
    expect(body.stream).toBe(true);
    expect(body.stream_options).toEqual({ include_usage: true });

    expect(withoutTiming(streamed)).toEqual(withoutTiming(plain));
    expect(plain.usage).toEqual({ input: 1200, output: 80, cached: 1000 });
    expect(plain.toolCalls.map((c) => c.args)).toEqual([
      { x: 1, y: 2 },
      { x: -1, y: 2 },
    ]);
  });

  it.each([false, true])("returns an empty answer as empty text and no calls (streaming %s)", async (streaming) => {
    const model = await chat([{ empty: true, usage: { prompt: 50, completion: 0 } }], { streaming });
    const turn = await turnOf(model, ask, [simulate]);
    expect(withoutTiming(turn)).toEqual({ text: "", toolCalls: [], usage: { input: 50, output: 0, cached: 0 }, model: "gpt-test", fromCache: false });
  });

  it("measures latency with the injected clock", async () => {
    server = await startFakeOpenAI([{ text: "ok" }]);
    const ticks = [100, 340];
    const model = createOpenAIChat(
      { ...ModelConfig.parse({ model: "gpt-test" }), baseURL: server.url, apiKey: "k" },
      { now: () => ticks.shift() ?? 0, limits: new EndpointLimits() },
    );
    expect((await turnOf(model, ask)).latencyMs).toBe(240);
  });
});

describe("an answer whose every tool call is unreadable", () => {
  it.each([false, true])("is read without langchain's upgrade notice, other warnings untouched (streaming %s)", async (streaming) => {
    const seen: unknown[][] = [];
    const spy = vi.spyOn(console, "warn").mockImplementation((...args) => void seen.push(args));
    try {
      const model = await chat([{ toolCalls: [{ id: "call_1", name: "simulate", args: { x: 1, y: 2 } }], malformedArgs: true }], { streaming });
      const turn = await turnOf(model, ask, [simulate]);
      console.warn("a real problem", 42);
      expect(turn.toolCalls).toMatchObject([{ id: "call_1", name: "simulate", args: {}, rawArgs: '{"x":1' }]);
      expect(turn.toolCalls[0]!.argsError).toBeDefined();
      expect(seen).toEqual([["a real problem", 42]]);
    } finally {
      spy.mockRestore();
    }
  });
});

describe("binding tools", () => {
  it("reuses the copy bound to the same tools, as an agent binds them before every call", () => {
    const model = new HexaChatOpenAI(bareParts({ ...ModelConfig.parse({ model: "gpt-test" }), baseURL: "http://bind.invalid/v1", apiKey: "k" }));
    const probe = { type: "function" as const, function: { name: "probe", description: "reads", parameters: { type: "object" } } };
    const other = { type: "function" as const, function: { name: "other", description: "reads", parameters: { type: "object" } } };
    const bound = model.bindTools([probe]);
    expect(model.bindTools([probe])).toBe(bound);
    expect(model.bindTools([probe], { tool_choice: "required" })).not.toBe(bound);
    const otherBound = model.bindTools([other]);
    expect(otherBound).not.toBe(bound);
    expect(model.bindTools([other])).toBe(otherBound);
  });
});
