import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { turnOf } from "../../test/support/turn-of.ts";
import { HumanMessage, SystemMessage } from "@langchain/core/messages";
import { startFakeOpenAI, type FakeOpenAI, type ScriptItem } from "../../test/support/fake-openai-server.ts";
import { AuditLine, exchangeKey, fileSink, withAudit } from "./audit-log.ts";
import { sha256Hex } from "../util/canonical-json.ts";
import type { Message, ToolSpec, Wire } from "./chat-model.ts";
import { ModelConfig } from "./config.ts";
import { EndpointLimits } from "./endpoint-limits.ts";
import { bareParts, HexaChatOpenAI } from "./openai-chat.ts";

const tools: ToolSpec[] = [
  { name: "simulate", description: "run", parameters: { type: "object", properties: {} } },
  { name: "get_level_state", description: "state", parameters: { type: "object", properties: {} } },
];
const ask: Message[] = [
  { role: "system", content: "Solve puzzles." },
  { role: "user", content: "Seed 5." },
];
const request = [new SystemMessage("Solve puzzles."), new HumanMessage("Seed 5.")];

let server: FakeOpenAI | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const audited = async (script: ScriptItem[], extra: { hashOnly?: boolean; pointer?: () => string } = {}) => {
  server = await startFakeOpenAI(script);
  const config = { ...ModelConfig.parse({ model: "gpt-test", maxRetries: 0 }), baseURL: server.url, apiKey: "k" };
  const lines: string[] = [];
  const audit = { sink: (l: string) => lines.push(l), role: "actor" as const, endpoint: server.url, now: () => Date.UTC(2025, 0, 2, 3, 4, 5), ...extra };
  const model = new HexaChatOpenAI({ ...bareParts(config, { limits: new EndpointLimits() }), layers: (wire) => withAudit(wire, audit) });
  return { model, lines, server };
};

describe("withAudit", () => {
  it("writes one line per call: messages, tools offered, response, usage, latency", async () => {
    const { model, lines, server } = await audited([
      {
        text: "Probe first.",
        toolCalls: [{ id: "call_9", name: "simulate", args: { x: 2 } }],
        usage: { prompt: 30, completion: 6, cached: 10 },
        model: "gpt-test-2025",
      },
    ]);
    const turn = await turnOf(model, request, tools);

    expect(lines).toHaveLength(1);
    const line = AuditLine.parse(JSON.parse(lines[0]!));
    expect(line).toEqual({
      schemaVersion: 1,
      ts: "2025-01-02T03:04:05.000Z",
      role: "actor",
      endpoint: server.url,
      modelRequested: "gpt-test",
      modelReported: "gpt-test-2025",
      messages: ask,
      messagesSha256: sha256Hex(ask),
      requestSha256: exchangeKey("gpt-test", ask, tools),
      tools: ["simulate", "get_level_state"],
      response: { text: "Probe first.", toolCalls: [{ id: "call_9", name: "simulate", args: { x: 2 }, rawArgs: '{"x":2}' }] },
      usage: { input: 30, output: 6, cached: 10 },
      latencyMs: turn.latencyMs,
      fromCache: false,
    });
  });

  it("keeps what a replay needs of the answer: its reasoning and problem, and the whole request's key", async () => {
    const lines: string[] = [];
    const inner: Wire = {
      name: "m",
      invoke: async () => ({
        text: "t",
        toolCalls: [],
        reasoning: "because",
        problem: "cut at the output cap",
        usage: { input: 1, output: 1, cached: 0 },
        model: "m",
        latencyMs: 1,
        fromCache: false,
      }),
    };
    await withAudit(inner, { sink: (l) => lines.push(l), role: "actor", endpoint: "http://x/v1" }).invoke(ask, tools);
    const line = AuditLine.parse(JSON.parse(lines[0]!));
    expect(line.response).toMatchObject({ reasoning: "because", problem: "cut at the output cap" });
    expect(line.requestSha256).toBe(exchangeKey("m", ask, tools));
    expect(line.requestSha256).not.toBe(exchangeKey("m", ask, tools.slice(1)));
  });

  it("keeps only the messages' hash and the caller's pointer when hashOnly", async () => {
    const { model, lines } = await audited([{ text: "ok" }], { hashOnly: true, pointer: () => "catapult__hexa__7/episode 3/turn 2" });
    await turnOf(model, request);

    const line = AuditLine.parse(JSON.parse(lines[0]!));
    expect(line.messages).toBeUndefined();
    expect(line.messagesSha256).toMatch(/^[0-9a-f]{64}$/);
    expect(line.messagesSha256).toBe(sha256Hex(ask));
    expect(line.messagesPointer).toBe("catapult__hexa__7/episode 3/turn 2");
    expect(lines[0]).not.toContain("Solve puzzles.");
  });

  it("logs a failed call with its error, then rethrows", async () => {
    const { model, lines, server } = await audited([{ fault: "400" }]);
    await expect(turnOf(model, request, tools)).rejects.toThrow("400 fake-openai: bad request");

    const line = AuditLine.parse(JSON.parse(lines[0]!));
    expect(line).toMatchObject({ modelReported: null, response: null, usage: null, fromCache: false });
    expect(line.error).toBe(`LlmError: ${server.url}: model gpt-test failed after 1 attempt(s): 400 fake-openai: bad request`);
  });

  it("appends JSONL to a file through fileSink", () => {
    const path = join(mkdtempSync(join(tmpdir(), "hexa-audit-")), "calls.jsonl");
    const sink = fileSink(path);
    sink('{"a":1}');
    sink('{"b":2}');
    expect(readFileSync(path, "utf8")).toBe('{"a":1}\n{"b":2}\n');
  });
});
