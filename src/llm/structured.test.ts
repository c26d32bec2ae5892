import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { startFakeOpenAI, type FakeOpenAI } from "../../test/support/fake-openai-server.ts";
import { ModelOutputError } from "../errors.ts";
import { createOpenAIChat } from "./openai-chat.ts";
import { ModelConfig } from "./config.ts";
import { extractJson, invokeStructured } from "./structured.ts";

const Bank = z.object({ skills: z.array(z.object({ id: z.string(), title: z.string(), weight: z.number().min(0).max(1) })) });

let server: FakeOpenAI | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

const modelOn = (s: FakeOpenAI) =>
  createOpenAIChat({ ...ModelConfig.parse({ model: "gpt-4.1-mini" }), baseURL: s.url, apiKey: "test" }, { sleep: async () => {} });

describe("structured output", () => {
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
    const r = await invokeStructured(modelOn(server), [{ role: "user", content: "Return the bank." }], Bank);
    expect(r.value.skills[0]!.weight).toBe(0.7);
    expect(r.turns).toHaveLength(2);
    const retry = server.requests[1]!.body.messages.at(-1)!;
    expect(String(retry.content)).toMatch(/skills\.0\.weight: Too big/);
  });

  it("gives up after the retry with a ModelOutputError", async () => {
    server = await startFakeOpenAI([{ text: "I cannot do that." }, { text: '{"skills": "none"}' }]);
    await expect(invokeStructured(modelOn(server), [{ role: "user", content: "Return the bank." }], Bank)).rejects.toThrow(
      /structured output failed after 2 attempt\(s\): the JSON does not match the schema: skills:/,
    );
  });
});
