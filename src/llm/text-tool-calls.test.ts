import { describe, expect, it } from "vitest";
import { textToolCalls } from "./text-tool-calls.ts";

const tools = ["simulate", "finish"];

describe("textToolCalls", () => {
  it("reads Hermes/Qwen <tool_call> blocks, several in order, and keeps the text around them", () => {
    const content =
      'Try.\n<tool_call>\n{"name": "simulate", "arguments": {"x": 1}}\n</tool_call>\n<tool_call>{"name": "finish", "arguments": "{\\"x\\": 2}"}</tool_call>';
    expect(textToolCalls(content, tools)).toEqual({
      calls: [
        { name: "simulate", args: { x: 1 } },
        { name: "finish", args: '{"x": 2}' },
      ],
      text: "Try.",
    });
  });
  it("says an unreadable block is unreadable and makes no call of it", () => {
    const r = textToolCalls('<tool_call>{"name": "simulate", "arguments": {"x": 1,', tools);
    expect(r.calls).toEqual([]);
    expect(r.unreadable).toBe(JSON.stringify('{"name": "simulate", "arguments": {"x": 1,'));
  });
  it("reads Mistral's [TOOL_CALLS] and a bare JSON call to an offered tool", () => {
    expect(textToolCalls('[TOOL_CALLS] [{"name": "finish", "arguments": {"x": 0}}]', tools).calls).toEqual([{ name: "finish", args: { x: 0 } }]);
    expect(textToolCalls('```json\n{"name": "simulate", "parameters": {"x": 3}}\n```', tools).calls).toEqual([{ name: "simulate", args: { x: 3 } }]);
  });
  it("reads nothing from JSON that is not a call, or when no tools were offered", () => {
    expect(textToolCalls('{"name": "not_a_tool", "arguments": {}}', tools).calls).toEqual([]);
    expect(textToolCalls('{"name": "simulate"}', tools).calls).toEqual([]);
    expect(textToolCalls("<tool_call>{}</tool_call>", [])).toEqual({ calls: [], text: "<tool_call>{}</tool_call>" });
  });
});
