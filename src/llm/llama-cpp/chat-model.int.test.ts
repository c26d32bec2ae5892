import { AIMessage, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
import { afterAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { writeTinyGguf } from "../../../test/support/tiny-gguf.ts";
import { tempDirs } from "../../../test/support/temp-files.ts";
import { LlamaCppChatModel } from "./chat-model.ts";
import { LlamaCppModelConfig } from "./config.ts";
import { probeEmbedded } from "./doctor.ts";
import { LlamaModels } from "./loaded-models.ts";

// node-llama-cpp tests its binary in a child process before loading it: this file is in the int tier.
const dir = tempDirs("hexa-llama-")();
const path = writeTinyGguf(dir);
const models = new LlamaModels();
afterAll(() => models.close());

// One thread: on a machine whose cores are busy, llama.cpp's threads wait on each other (docs/guides/model-servers.md).
const configOf = (o: Record<string, unknown> = {}) =>
  LlamaCppModelConfig.parse({ provider: "llama-cpp", model: path, contextSize: 2048, gpu: false, threads: 1, temperature: 0, maxOutputTokens: 120, ...o });
const modelOf = (o: Record<string, unknown> = {}, where = "llm.actor") => new LlamaCppChatModel({ config: configOf(o), models, where });

const Throw = z.strictObject({ x: z.number(), label: z.string(), mode: z.enum(["soft", "hard"]) });
const Wait = z.strictObject({ steps: z.number().int() });
const TOOLS = [
  { name: "throw_ball", description: "Throw the ball.", schema: Throw },
  { name: "wait", description: "Wait some steps.", schema: Wait },
];

describe("LlamaCppChatModel on a generated model", () => {
  it("answers with exactly one tool call held by the tools' grammar, random weights notwithstanding", async () => {
    for (const seed of [1, 2, 3]) {
      const answer = await modelOf({ seed, temperature: 1 })
        .bindTools(TOOLS)
        .invoke([new SystemMessage("You play."), new HumanMessage("Your move.")]);
      expect(answer.invalid_tool_calls).toEqual([]);
      expect(answer.tool_calls).toHaveLength(1);
      const [call] = answer.tool_calls!;
      expect(call!.id).toMatch(/^call_/);
      const schema = call!.name === "throw_ball" ? Throw : Wait;
      expect(schema.safeParse(call!.args).success).toBe(true);
    }
  });

  it("reads its own earlier calls and the tools' results in the history", async () => {
    const call = { type: "tool_call" as const, id: "call_1", name: "wait", args: { steps: 0 } };
    const answer = await modelOf()
      .bindTools(TOOLS)
      .invoke([
        new HumanMessage("Your move."),
        new AIMessage({ content: "", tool_calls: [call] }),
        new ToolMessage({ content: "waited", tool_call_id: "call_1", name: "wait" }),
      ]);
    expect(answer.tool_calls).toHaveLength(1);
  });

  it("answers JSON that the schema accepts under withStructuredOutput", async () => {
    const Answer = z.object({ ok: z.boolean(), notes: z.array(z.string()), score: z.number(), kind: z.enum(["a", "b"]) });
    const value = await modelOf()
      .withStructuredOutput(Answer)
      .invoke([new HumanMessage("Report.")]);
    expect(Answer.safeParse(value).success).toBe(true);
  });

  it("counts usage with the tokenizer: the ChatML prompt's tokens, the tokens generated, cost 0", async () => {
    const model = modelOf({ maxOutputTokens: 7 });
    const answer = await model.invoke([new SystemMessage("S!"), new HumanMessage("hi")]);
    // Byte-level vocabulary: a special token is one token, every other byte one more. node-llama-cpp's ChatML
    // wrapper opens with the model's BOS token (<|endoftext|> here), which the model evaluates too.
    const rendered = [
      "<|endoftext|>",
      "<|im_start|>",
      "system\nS!",
      "<|im_end|>",
      "\n",
      "<|im_start|>",
      "user\nhi",
      "<|im_end|>",
      "\n",
      "<|im_start|>",
      "assistant\n",
    ];
    const expected = rendered.reduce((n, part) => n + (part.startsWith("<|") ? 1 : Buffer.byteLength(part)), 0);
    expect(answer.usage_metadata).toEqual({ input_tokens: expected, output_tokens: 7, total_tokens: expected + 7 });
    expect(answer.response_metadata).toMatchObject({ finish_reason: "length", cost: 0 });
  });

  it("shares one loaded model between roles that name the same file, and not with other load options", async () => {
    const actor = await models.acquire(configOf(), "llm.actor");
    const evolver = await models.acquire(configOf({ temperature: 0.2 }), "llm.evolver");
    expect(evolver.model).toBe(actor.model);
    const cpuOnlyLayers = await models.acquire(configOf({ gpuLayers: 0 }), "llm.synthesiser");
    expect(cpuOnlyLayers.model).not.toBe(actor.model);
    expect(actor.rss.after).toBeGreaterThan(0);
  });

  it("refuses a prompt longer than the context, naming the field", async () => {
    const model = modelOf({ contextSize: 64, maxOutputTokens: 8 });
    await expect(model.invoke([new HumanMessage("x".repeat(100))])).rejects.toThrow(
      /llm\.actor: the prompt \(\d+ tokens\) plus maxOutputTokens \(8\) is longer than llm\.actor\.contextSize \(64\)/,
    );
  });

  it("doctor: loads it, measures it, and a grammar-held tool call parses", async () => {
    const report = await probeEmbedded(configOf(), models, "llm.actor");
    expect(report).toMatchObject({ architecture: "llama", quantisation: "F32", templateSource: "gguf", toolCall: "parses", trainedContext: 512 });
    expect(report.promptTokensPerS).toBeGreaterThan(0);
    expect(report.generationTokensPerS).toBeGreaterThan(0);
  });

  it("uses the documented default template for a file without one", async () => {
    const bare = writeTinyGguf(dir, { chatTemplate: null, name: "bare" });
    const shared = await models.acquire(configOf({ model: bare }), "llm.actor");
    expect(shared.templateSource).toBe("default (ChatML)");
  });
});
