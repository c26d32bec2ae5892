import { describe, expect, it } from "vitest";
import { exchangeKey } from "./audit-log.ts";
import type { Message, OutputRequest, ToolSpec } from "./chat-model.ts";
import { requestKey } from "./response-cache.ts";

/**
 * The keys an existing response cache and a recorded llm-log.jsonl were written under: pinned as literals, so a
 * change to how a request is represented before it is hashed shows here rather than as silent cache misses and
 * replays that no longer match.
 */
const tool: ToolSpec = { name: "simulate", description: "Run the world.", parameters: { type: "object", properties: { x: { type: "number" } } } };
const conversation: Message[] = [
  { role: "system", content: "You solve physics puzzles." },
  { role: "user", content: "Solve catapult seed 7." },
  { role: "assistant", content: "Try the edge.", toolCalls: [{ id: "call_1", name: "simulate", args: { x: 1 }, rawArgs: '{ "x": 1 }' }] },
  { role: "tool", content: "no success", toolCallId: "call_1", name: "simulate" },
  { role: "assistant", content: "", toolCalls: [{ id: "call_2", name: "simulate", args: {}, rawArgs: '{"x":', argsError: "not JSON" }] },
  { role: "tool", content: "error: not JSON", toolCallId: "call_2", name: "simulate" },
];
const output: OutputRequest = { name: "bank_edits", schema: { type: "object", properties: { edits: { type: "array" } } } };

describe("request keys", () => {
  it("keys a response-cache entry as it always has", () => {
    const sampling = { temperature: 1, maxOutputTokens: 8192, baseURL: "http://127.0.0.1:8000/v1" };
    expect(requestKey("gpt-test", sampling, conversation, [tool])).toBe("71e0037eee3dc043c55ab4b88d0865f7f469ee98d9d80573c0cf33cd8a9be3b1");
    expect(requestKey("gpt-test", { ...sampling, toolChoice: "required", extraBody: { top_k: 20 } }, conversation, [tool])).toBe(
      "12f34f1329bc4aa6065258a9f21a6f4f68c80e023621c1fefb9051bc58e299f1",
    );
    expect(requestKey("gpt-test", { temperature: null, maxOutputTokens: null }, conversation.slice(0, 2), [], output)).toBe(
      "00f0194c4341f45f97113f35f163320663c455046e817788becb999ada67d4c2",
    );
  });

  it("keys a logged exchange as it always has", () => {
    expect(exchangeKey("gpt-test", conversation, [tool])).toBe("4e993ed8807dbbf7b746b05b9d7218c981c3303bc9eb72b11d4d17ea5d942063");
    expect(exchangeKey("gpt-test", conversation.slice(0, 2), [], output)).toBe("77fd85684c1845c93dd5b3bb773b65f5b02f939e677b36fed1c59354315573a7");
  });
});
