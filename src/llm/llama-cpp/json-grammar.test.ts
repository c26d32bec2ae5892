import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { InvariantError } from "../../errors.ts";
import { LlamaCppModelConfig } from "./config.ts";
import { toChatHistory } from "./history.ts";
import { toGbnfSchema, toolCallSchema } from "./json-grammar.ts";

describe("toGbnfSchema", () => {
  it("keeps what a grammar holds and drops what only a parser checks", () => {
    const schema = z.toJSONSchema(
      z.strictObject({ x: z.number().min(-4.5).max(4.5), tag: z.string().max(8).optional(), mode: z.enum(["a", "b"]), at: z.array(z.int()).min(1) }),
    );
    expect(toGbnfSchema(schema, "tool t")).toEqual({
      type: "object",
      properties: {
        x: { type: "number" },
        tag: { type: "string", maxLength: 8 },
        mode: { enum: ["a", "b"] },
        at: { type: "array", items: { type: "integer" }, minItems: 1 },
      },
      required: ["x", "mode", "at"],
      additionalProperties: false,
    });
  });

  it("turns anyOf and nullable types into the grammar's oneOf, and local refs into $defs", () => {
    expect(toGbnfSchema({ anyOf: [{ type: "string" }, { type: "null" }] }, "t")).toEqual({ oneOf: [{ type: "string" }, { type: "null" }] });
    expect(toGbnfSchema({ type: ["string", "null"] }, "t")).toEqual({ type: ["string", "null"] });
    expect(toGbnfSchema({ $ref: "#/definitions/P", definitions: { P: { type: "boolean" } } }, "t")).toEqual({
      $ref: "#/$defs/P",
      $defs: { P: { type: "boolean" } },
    });
  });

  it("refuses a reference outside the schema rather than follow it", () => {
    expect(() => toGbnfSchema({ $ref: "https://example.com/s.json" }, "tool t")).toThrow(InvariantError);
    expect(() => toGbnfSchema({ $ref: "https://example.com/s.json" }, "tool t")).toThrow(/tool t: \$ref "https:\/\/example.com\/s.json"/);
  });

  it("makes one call of any tool: its name as a constant, its arguments by its schema", () => {
    const tools = [
      { type: "function" as const, function: { name: "wait", parameters: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] } } },
      { type: "function" as const, function: { name: "stop" } },
    ];
    expect(toolCallSchema(tools)).toEqual({
      oneOf: [
        {
          type: "object",
          properties: {
            name: { const: "wait" },
            arguments: { type: "object", properties: { n: { type: "integer" } }, required: ["n"], additionalProperties: false },
          },
          required: ["name", "arguments"],
        },
        {
          type: "object",
          properties: { name: { const: "stop" }, arguments: { type: "object", properties: {}, required: [], additionalProperties: false } },
          required: ["name", "arguments"],
        },
      ],
    });
  });
});

describe("toChatHistory", () => {
  it("writes calls as the JSON the model answers in, results as user turns, and drops earlier reasoning", () => {
    const history = toChatHistory(
      [
        new SystemMessage("Play."),
        new HumanMessage("Go."),
        new AIMessage({ content: "", tool_calls: [{ type: "tool_call", id: "c1", name: "wait", args: { n: 2 } }] }),
        new ToolMessage({ content: "waited", tool_call_id: "c1", name: "wait" }),
        new AIMessage("<think>secret plan</think>Done."),
      ],
      { tools: [{ type: "function", function: { name: "wait", description: "Wait.", parameters: { type: "object" } } }] },
    );
    expect(history[0]).toMatchObject({ type: "system" });
    expect((history[0] as { text: string }).text).toMatch(/^Play\.\n\nAnswer with exactly one tool call/);
    expect((history[0] as { text: string }).text).toContain('- wait: Wait.\n  arguments schema: {"type":"object"}');
    expect(history.slice(1)).toEqual([
      { type: "user", text: "Go." },
      { type: "model", response: ['{"name":"wait","arguments":{"n":2}}'] },
      { type: "user", text: "Result of wait (c1):\nwaited" },
      { type: "model", response: ["Done."] },
      { type: "model", response: [] },
    ]);
  });

  it("adds a system message for a held JSON answer when none leads", () => {
    const history = toChatHistory([new HumanMessage("Report.")], { jsonSchema: { type: "object" } });
    expect(history[0]).toEqual({ type: "system", text: 'Answer with one JSON value that follows this JSON schema:\n{"type":"object"}' });
  });
});

describe("LlamaCppModelConfig", () => {
  it("names the provider and the file, and defaults the rest", () => {
    expect(LlamaCppModelConfig.parse({ provider: "llama-cpp", model: "m.gguf" })).toEqual({
      provider: "llama-cpp",
      model: "m.gguf",
      contextSize: 8192,
      gpu: "auto",
      temperature: 1,
      maxOutputTokens: 2048,
      parallel: 1,
    });
    expect(LlamaCppModelConfig.safeParse({ provider: "llama-cpp", model: "m.gguf", gpu: "yes" }).success).toBe(false);
    expect(LlamaCppModelConfig.safeParse({ provider: "llama-cpp", model: "m.gguf", baseURL: "http://x" }).success).toBe(false);
  });
});
