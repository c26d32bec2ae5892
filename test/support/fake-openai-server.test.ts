import { afterEach, describe, expect, it } from "vitest";
import { startFakeOpenAI, type FakeOpenAI } from "./fake-openai-server.ts";

let server: FakeOpenAI | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const post = (path: string, body: unknown) =>
  fetch(`${server!.url.replace(/\/v1$/, "")}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

const events = (sse: string) =>
  sse
    .split("\n\n")
    .filter((e) => e.startsWith("data: "))
    .map((e) => e.slice("data: ".length));

describe("startFakeOpenAI", () => {
  it("serves the script in order on both paths, with unique ids, and records every body", async () => {
    server = await startFakeOpenAI([{ text: "one" }]);
    server.push({ toolCalls: [{ name: "simulate", args: { x: 1 } }], model: "reported", usage: { prompt: 7, completion: 3, cached: 2 } });
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);

    const a = await (await post("/v1/chat/completions", { model: "m", messages: [{ role: "user", content: "hi" }] })).json();
    const b = await (await post("/chat/completions", { model: "m", messages: [] })).json();

    expect(a).toMatchObject({ id: "chatcmpl-1", model: "m", choices: [{ message: { role: "assistant", content: "one" }, finish_reason: "stop" }] });
    expect(b).toMatchObject({
      id: "chatcmpl-2",
      model: "reported",
      choices: [
        {
          message: { content: null, tool_calls: [{ id: "call_2_0", type: "function", function: { name: "simulate", arguments: '{"x":1}' } }] },
          finish_reason: "tool_calls",
        },
      ],
      usage: { prompt_tokens: 7, completion_tokens: 3, total_tokens: 10, prompt_tokens_details: { cached_tokens: 2 } },
    });
    expect(server.requests.map((r) => r.path)).toEqual(["/v1/chat/completions", "/chat/completions"]);
    expect(server.requests[0]!.body.messages).toEqual([{ role: "user", content: "hi" }]);

    const past = await post("/v1/chat/completions", { model: "m", messages: [] });
    expect(past.status).toBe(400);
    expect(((await past.json()) as { error: { message: string } }).error.message).toBe("fake-openai: script exhausted after 2 answers");
  });

  it("streams SSE: role first, tool-call deltas by index, usage only when asked, then [DONE]", async () => {
    server = await startFakeOpenAI([
      {
        text: "abcd",
        toolCalls: [
          { name: "f", args: { a: 1 } },
          { name: "g", args: {} },
        ],
      },
      { text: "x" },
    ]);
    const res = await post("/v1/chat/completions", { model: "m", messages: [], stream: true, stream_options: { include_usage: true } });
    expect(res.headers.get("content-type")).toBe("text/event-stream");
    const data = events(await res.text());

    expect(data.at(-1)).toBe("[DONE]");
    const chunks = data.slice(0, -1).map((d) => JSON.parse(d));
    expect(new Set(chunks.map((c) => c.id))).toEqual(new Set(["chatcmpl-1"]));
    expect(chunks[0].choices[0].delta).toEqual({ role: "assistant", content: "" });
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? "").join("")).toBe("abcd");
    const toolDeltas = chunks.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []);
    const argsOf = (i: number) =>
      toolDeltas
        .filter((t) => t.index === i)
        .map((t) => t.function.arguments)
        .join("");
    expect(toolDeltas.filter((t) => t.id).map((t) => [t.index, t.id, t.function.name])).toEqual([
      [0, "call_1_0", "f"],
      [1, "call_1_1", "g"],
    ]);
    expect([argsOf(0), argsOf(1)]).toEqual(['{"a":1}', "{}"]);
    expect(chunks.at(-2).choices[0].finish_reason).toBe("tool_calls");
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: 10, completion_tokens: 5 } });

    const plain = events(await (await post("/v1/chat/completions", { model: "m", messages: [], stream: true })).text());
    expect(plain.slice(0, -1).some((d) => "usage" in JSON.parse(d))).toBe(false);
  });

  it("injects faults: 429 with Retry-After, 500, a dropped socket, a request left hanging", async () => {
    server = await startFakeOpenAI([{ fault: "429", retryAfter: 3 }, { fault: "500" }, { fault: "drop" }, { fault: "timeout" }]);
    const limited = await post("/v1/chat/completions", { model: "m", messages: [] });
    expect([limited.status, limited.headers.get("retry-after")]).toEqual([429, "3"]);
    expect((await post("/v1/chat/completions", { model: "m", messages: [] })).status).toBe(500);
    await expect(post("/v1/chat/completions", { model: "m", messages: [] })).rejects.toThrow("fetch failed");
    const hanging = await Promise.race([
      post("/v1/chat/completions", { model: "m", messages: [] }).catch(() => "closed"),
      new Promise((r) => setTimeout(() => r("no answer"), 100)),
    ]);
    expect(hanging).toBe("no answer");
    expect(server.requests).toHaveLength(4);
  });
});
