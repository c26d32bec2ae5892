import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
import { afterEach, describe, expect, it } from "vitest";
import { turnOf } from "./support/turn-of.ts";
import type { ToolSpec } from "../src/llm/chat-model.ts";
import { ModelConfig } from "../src/llm/config.ts";
import { EndpointLimits } from "../src/llm/endpoint-limits.ts";
import { ContextOverflow } from "../src/llm/llm-error.ts";
import { createOpenAIChat } from "../src/llm/openai-chat.ts";
import { startFakeOpenAI, type FakeOpenAI, type ScriptItem } from "./support/fake-openai-server.ts";

/** Real model servers' wire quirks, each through hexa's ChatOpenAI path against a local server (fake-openai-quirks.ts). */

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

const chat = async (script: ScriptItem[], options: Record<string, unknown> = {}) => {
  server = await startFakeOpenAI(script);
  const notices: string[] = [];
  const config = { ...ModelConfig.parse({ model: "qwen3", maxRetries: 0, ...options }), baseURL: server.url, apiKey: "k" };
  const model = createOpenAIChat(config, {
    sleep: async () => {},
    random: () => 0.5,
    limits: new EndpointLimits(),
    where: "llm.actor",
    onNotice: (m) => notices.push(m),
  });
  return { model, notices };
};

const both = [false, true];

describe("tool calls written as text", () => {
  it.each(both)("reads a Hermes <tool_call> in the content as the call, and says so once (streaming %s)", async (streaming) => {
    const item: ScriptItem = { text: "Try the left edge.", toolCalls: [{ name: "simulate", args: { x: -2.5, y: 3 } }], quirks: { textToolCalls: "hermes" } };
    const { model, notices } = await chat([item, item], { streaming });
    const turn = await turnOf(model, ask, [simulate]);
    await turnOf(model, ask, [simulate]);

    expect(turn.text).toBe("Try the left edge.");
    expect(turn.toolCalls).toHaveLength(1);
    expect(turn.toolCalls[0]).toMatchObject({ name: "simulate", args: { x: -2.5, y: 3 } });
    expect(turn.toolCalls[0]!.id).toMatch(/^call_[0-9a-f]{24}$/);
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatch(
      /^llm\.actor: the server returned the tool call as text in the content \(finish_reason stop\); hexa read it as the call, but start vLLM with --enable-auto-tool-choice --tool-call-parser .* llama\.cpp's server with --jinja$/,
    );
  });

  it("names an unreadable text call to the model (problem) and to the user (notice), with no call made", async () => {
    const { model, notices } = await chat([{ text: "Calling.", toolCalls: [{ name: "simulate", args: { x: 1 } }], quirks: { textToolCalls: "broken" } }]);
    const turn = await turnOf(model, ask, [simulate]);
    expect(turn.toolCalls).toEqual([]);
    expect(turn.problem).toMatch(/^your tool call came as text that could not be read \(got .*\); make the call again/);
    expect(notices[0]).toMatch(/^llm\.actor: the server returned the tool call as text and it could not be read .*--tool-call-parser.*--jinja$/);
  });

  it("reads nothing as a call when no tools were offered (the evolver's JSON stays text)", async () => {
    const { model } = await chat([{ text: '{"name": "simulate", "arguments": {"x": 1}}' }]);
    const turn = await turnOf(model, ask);
    expect(turn.toolCalls).toEqual([]);
    expect(turn.text).toBe('{"name": "simulate", "arguments": {"x": 1}}');
  });
});

describe("reasoning", () => {
  it.each(both)("moves <think>…</think> out of the text into reasoning (streaming %s)", async (streaming) => {
    const { model, notices } = await chat([{ text: '{"ok": true}', quirks: { think: "Maybe {not json} here." } }], { streaming });
    const turn = await turnOf(model, ask);
    expect(turn.text).toBe('{"ok": true}');
    expect(turn.reasoning).toBe("Maybe {not json} here.");
    expect(notices[0]).toMatch(/^llm\.actor: the answer held <think>…<\/think> in its content .*--reasoning-parser/);
  });

  it.each([
    ["reasoning_content", false],
    ["reasoning_content", true],
    ["reasoning", false],
    ["reasoning", true],
  ] as const)("keeps the %s field as reasoning (streaming %s)", async (field, streaming) => {
    const { model } = await chat(
      [
        {
          text: "Left edge.",
          toolCalls: [{ name: "simulate", args: { x: 1, y: 2 } }],
          quirks: { reasoning: { field, text: "The ball must clear the wall." } },
        },
      ],
      { streaming },
    );
    const turn = await turnOf(model, ask, [simulate]);
    expect(turn.reasoning).toBe("The ball must clear the wall.");
    expect(turn.text).toBe("Left edge.");
    expect(turn.toolCalls[0]!.args).toEqual({ x: 1, y: 2 });
  });
});

describe("usage", () => {
  it.each(both)("estimates usage the server did not report, marked estimated, and says so once (streaming %s)", async (streaming) => {
    const { model, notices } = await chat([{ text: "x".repeat(400), quirks: { noUsage: true } }], { streaming });
    const turn = await turnOf(model, ask);
    expect(turn.usage.estimated).toBe(true);
    expect(turn.usage.output).toBe(100);
    expect(turn.usage.input).toBeGreaterThan(0);
    expect(notices[0]).toMatch(/^llm\.actor: the server reported no token usage; hexa counts its own estimate/);
  });

  it("warns of a prompt the server cut short: a recorded input far below the estimate", async () => {
    const { model, notices } = await chat([{ text: "ok", usage: { prompt: 2048, completion: 1 } }]);
    const long = [ask[0]!, new HumanMessage("words ".repeat(4000))];
    const turn = await turnOf(model, long, []);
    expect(turn.usage).toEqual({ input: 2048, output: 1, cached: 0 });
    expect(notices[0]).toMatch(/^llm\.actor: the server counted 2048 input tokens for a request hexa estimates at about \d+; .*OLLAMA_CONTEXT_LENGTH/);
  });
});

describe("tool-call arguments", () => {
  it.each([
    [{ objectArgs: true }, "arguments came as a JSON object"],
    [{ trailingArgs: " <|im_end|>" }, "text after the JSON arguments was dropped"],
    [{ doubleEncodedArgs: true }, "double-encoded"],
  ])("repairs %j with a notice", async (quirks, said) => {
    const { model, notices } = await chat([{ toolCalls: [{ name: "simulate", args: { x: 1.5, y: 2 } }], quirks }]);
    const turn = await turnOf(model, ask, [simulate]);
    expect(turn.toolCalls[0]).toMatchObject({ name: "simulate", args: { x: 1.5, y: 2 } });
    expect(turn.toolCalls[0]!.argsError).toBeUndefined();
    expect(notices[0]).toContain(said);
  });

  it.each(both)("makes unique ids for calls the server sent without one (streaming %s)", async (streaming) => {
    const item: ScriptItem = {
      toolCalls: [
        { name: "simulate", args: { x: 1, y: 2 } },
        { name: "simulate", args: { x: 1, y: 2 } },
      ],
      quirks: { noToolCallIds: true },
    };
    const { model } = await chat([item, item], { streaming });
    const a = await turnOf(model, ask, [simulate]);
    const b = await turnOf(model, [...ask, new HumanMessage("again")], [simulate]);
    const ids = [...a.toolCalls, ...b.toolCalls].map((c) => c.id);
    expect(new Set(ids).size).toBe(4);
    ids.forEach((id) => expect(id).toMatch(/^call_[0-9a-f]{24}$/));
  });
});

describe("an answer cut at the output cap", () => {
  it.each(both)("says the cap and the setting, not a parse error (streaming %s)", async (streaming) => {
    const { model } = await chat([{ text: '{"skills": [', quirks: { finishLength: true } }], { streaming, maxOutputTokens: 512 });
    const turn = await turnOf(model, ask);
    expect(turn.problem).toBe(
      "llm.actor: the answer was cut at max output tokens 512 (finish_reason length); raise llm.actor.maxOutputTokens, or answer more briefly",
    );
  });
});

describe("error answers", () => {
  it.each(["vllm", "llama.cpp", "openai"] as const)("turns a %s context overflow into ContextOverflow with the fix", async (flavour) => {
    const { model } = await chat([{ quirks: { contextOverflow: flavour } }]);
    const error = await turnOf(model, ask).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ContextOverflow);
    expect((error as Error).message).toMatch(
      /is longer than the context the server gives the model: lower llm\.actor\.maxOutputTokens or actor\.maxRequestChars, or serve the model with a longer context \(vLLM --max-model-len, llama\.cpp -c, Ollama OLLAMA_CONTEXT_LENGTH\)$/,
    );
  });

  it("shows the message of an error vLLM put at the top level of the body", async () => {
    const { model } = await chat([{ quirks: { topLevelError: "[{'type': 'extra_forbidden', 'loc': ('body', 'foo')}]" } }]);
    const error = (await turnOf(model, ask).catch((e: unknown) => e)) as Error;
    expect(error.message).toContain("400 [{'type': 'extra_forbidden', 'loc': ('body', 'foo')}]");
    expect(error.message).not.toContain("no body");
  });
});

describe("a slow or serial server", () => {
  it("names timeoutMs and concurrency in a timeout (a server serving one request at a time queues the rest)", async () => {
    const { model } = await chat([{ fault: "timeout" }], { timeoutMs: 50 });
    const error = (await turnOf(model, ask).catch((e: unknown) => e)) as Error;
    expect(error.message).toMatch(
      /no answer within 50 ms; raise llm\.actor\.timeoutMs, or, if the server serves fewer requests at a time than llm\.actor\.concurrency \(1; llama\.cpp -np, OLLAMA_NUM_PARALLEL\), lower it to that number$/,
    );
  });

  it("sends one request at a time to a server on this machine unless concurrency is set", async () => {
    const { model } = await chat(Array.from({ length: 3 }, () => ({ text: "ok", delayMs: 30 })));
    await Promise.all([turnOf(model, ask), turnOf(model, ask), turnOf(model, ask)]);
    expect(server!.maxInFlight).toBe(1);
  });
});

describe("request shape", () => {
  it('sends content null (not "") for an assistant message that only made tool calls', async () => {
    const { model } = await chat([{ text: "ok" }]);
    await turnOf(
      model,
      [
        ...ask,
        new AIMessage({ content: "", tool_calls: [{ id: "call_1", name: "simulate", args: { x: 1, y: 2 }, type: "tool_call" }] }),
        new ToolMessage({ content: "fell short", tool_call_id: "call_1", name: "simulate" }),
      ],
      [simulate],
    );
    const sent = server!.requests[0]!.body.messages;
    expect(sent[2]).toMatchObject({ role: "assistant", content: null });
  });

  it("sends the per-role request parameters: no temperature, max_completion_tokens, tool_choice, extraBody", async () => {
    const { model } = await chat([{ text: "ok" }, { text: "ok" }], {
      temperature: null,
      maxOutputTokens: 1000,
      maxTokensParam: "max_completion_tokens",
      toolChoice: "required",
      extraBody: { chat_template_kwargs: { enable_thinking: false }, seed: 7 },
    });
    await turnOf(model, ask, [simulate]);
    const body = server!.requests[0]!.body;
    expect(body.temperature).toBeUndefined();
    expect(body.max_tokens).toBeUndefined();
    expect(body.max_completion_tokens).toBe(1000);
    expect(body.tool_choice).toBe("required");
    expect(body.chat_template_kwargs).toEqual({ enable_thinking: false });
    expect(body.seed).toBe(7);
  });

  it("sends no output cap when maxOutputTokens is null", async () => {
    const { model } = await chat([{ text: "ok" }], { maxOutputTokens: null });
    await turnOf(model, ask);
    const body = server!.requests[0]!.body;
    expect(body.max_tokens).toBeUndefined();
    expect(body.max_completion_tokens).toBeUndefined();
  });
});
