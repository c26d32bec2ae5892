import { afterEach, describe, expect, it } from "vitest";
import { startFakeOpenAI, type FakeOpenAI } from "./fake-openai-server.ts";

let server: FakeOpenAI | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const post = (body: unknown) =>
  fetch(`${server!.url}/chat/completions`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
const events = (sse: string) =>
  sse
    .split("\n\n")
    .filter((e) => e.startsWith("data: ") && e !== "data: [DONE]")
    .map(
      (e) =>
        JSON.parse(e.slice("data: ".length)) as {
          id: string;
          usage?: unknown;
          choices: Array<{ delta: Record<string, unknown>; finish_reason: string | null }>;
        },
    );

describe("the fake server's quirk switches", () => {
  it("answers as a quirky server: text tool calls, no usage, object arguments without ids, finish_reason length", async () => {
    server = await startFakeOpenAI([
      { text: "Go.", toolCalls: [{ name: "f", args: { a: 1 } }], quirks: { textToolCalls: "hermes", think: "hmm" } },
      { toolCalls: [{ name: "f", args: { a: 1 } }], quirks: { noUsage: true, objectArgs: true, noToolCallIds: true, finishLength: true } },
    ]);
    const a = (await (await post({ model: "m", messages: [] })).json()) as { choices: Array<{ message: Record<string, unknown>; finish_reason: string }> };
    expect(a.choices[0]).toMatchObject({
      message: { content: '<think>hmm</think>\nGo.\n<tool_call>\n{"name":"f","arguments":{"a":1}}\n</tool_call>' },
      finish_reason: "stop",
    });
    expect(a.choices[0]!.message.tool_calls).toBeUndefined();
    const b = (await (await post({ model: "m", messages: [] })).json()) as Record<string, unknown>;
    expect(b.usage).toBeUndefined();
    expect(b).toMatchObject({
      id: "chatcmpl-2",
      choices: [{ message: { tool_calls: [{ type: "function", function: { name: "f", arguments: { a: 1 } } }] }, finish_reason: "length" }],
    });
    expect(JSON.stringify(b)).not.toContain('"id":"call_');
  });

  it("streams reasoning deltas after the role chunk, drops the usage chunk, keeps one response id", async () => {
    server = await startFakeOpenAI([{ text: "ok", quirks: { reasoning: { field: "reasoning_content", text: "abcd" }, noUsage: true } }]);
    const chunks = events(await (await post({ model: "m", messages: [], stream: true, stream_options: { include_usage: true } })).text());
    expect(chunks[0]!.choices[0]!.delta).toEqual({ role: "assistant", content: "" });
    expect(chunks.map((c) => c.choices[0]?.delta.reasoning_content ?? "").join("")).toBe("abcd");
    expect(chunks.some((c) => "usage" in c)).toBe(false);
    expect(new Set(chunks.map((c) => c.id))).toEqual(new Set(["chatcmpl-1"]));
  });

  it("answers errors as vLLM, llama.cpp and OpenAI word them", async () => {
    server = await startFakeOpenAI([{ quirks: { topLevelError: "bad field" } }, { quirks: { contextOverflow: "llama.cpp" } }]);
    const top = await post({ model: "m", messages: [] });
    expect([top.status, await top.json()]).toEqual([400, { object: "error", message: "bad field", type: "BadRequestError", param: null, code: 400 }]);
    const overflow = await post({ model: "m", messages: [] });
    expect(overflow.status).toBe(400);
    expect(await overflow.json()).toMatchObject({ error: { type: "exceed_context_size_error" } });
  });
});
