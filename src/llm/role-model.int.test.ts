import { copyFileSync, mkdtempSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { turnOf } from "../../test/support/turn-of.ts";
import { HumanMessage } from "@langchain/core/messages";
import { tempDirs } from "../../test/support/temp-files.ts";
import { writeTinyGguf } from "../../test/support/tiny-gguf.ts";
import { AuditLine } from "./audit-log.ts";
import { SpendGate } from "./budget.ts";
import { LlmConfig } from "./config.ts";
import { LlamaModels } from "./llama-cpp/loaded-models.ts";
import { ggufServedOf } from "./llama-cpp/served.ts";
import { openModelFile } from "./llama-cpp/model-file.ts";
import { createRoleModel } from "./role-model.ts";
import type { AssistantTurn } from "./chat-model.ts";

// node-llama-cpp tests its binary in a child process before loading it: this file is in the int tier.
const dir = tempDirs("hexa-role-llama-")();
const path = writeTinyGguf(dir);
const models = new LlamaModels();
afterAll(() => models.close());

const embedded = (model: string, o: Record<string, unknown> = {}) =>
  LlmConfig.parse({
    actor: { provider: "llama-cpp", model, contextSize: 1024, gpu: false, threads: 1, parallel: 1, temperature: 0, maxOutputTokens: 40 },
    ...o,
  });
const TOOL = { name: "wait", description: "Wait some steps.", parameters: { type: "object", properties: { steps: { type: "integer" } }, required: ["steps"] } };
const ask = [new HumanMessage("Your move.")];

describe("createRoleModel with an embedded model", () => {
  it("runs the endpoint path's pipeline: audit line with the file's hash, tokens metered at cost 0, spend gate, cache", async () => {
    const sha256 = (await ggufServedOf(await openModelFile(path, "m"))).sha256;
    const lines: string[] = [];
    const turns: AssistantTurn[] = [];
    const gate = new SpendGate({ usd: 1, tokens: 100_000 }, LlmConfig.parse({}).prices);
    const llm = embedded(path, { cacheDir: mkdtempSync(join(dir, "cache-")) });
    const model = createRoleModel("actor", llm, { env: {}, auditSink: (l) => lines.push(l), gate, llama: models }).listening((t) => turns.push(t));

    const first = await turnOf(model, ask, [TOOL]);
    const second = await turnOf(model, ask, [TOOL]);

    expect(first.toolCalls).toHaveLength(1);
    expect(first.toolCalls[0]!.name).toBe("wait");
    expect([first.model, first.fromCache, second.fromCache]).toEqual([`gguf:sha256:${sha256}`, false, true]);
    expect(first.usage.input).toBeGreaterThan(0);
    expect(first.usage.output).toBeGreaterThan(0);
    const logged = lines.map((l) => AuditLine.parse(JSON.parse(l)));
    expect(logged.map((l) => [l.endpoint, l.modelRequested, l.modelReported, l.fromCache])).toEqual([
      [`gguf:sha256:${sha256}`, path, `gguf:sha256:${sha256}`, false],
      [`gguf:sha256:${sha256}`, path, `gguf:sha256:${sha256}`, true],
    ]);
    expect(turns.map((t) => t.usage.output)).toEqual([first.usage.output, first.usage.output]);
    const spent = await gate.total();
    expect(spent).toEqual({ usd: 0, tokens: first.usage.input + first.usage.output, calls: 1 });
  });

  it("misses the cache when the file at the path is another model", async () => {
    const cacheDir = mkdtempSync(join(dir, "cache-"));
    const swapDir = mkdtempSync(join(dir, "swap-"));
    const swapPath = join(swapDir, "model.gguf");
    copyFileSync(path, swapPath);
    const first = await turnOf(createRoleModel("actor", embedded(swapPath, { cacheDir }), { env: {}, llama: models }), ask, [TOOL]);
    // Another model at the same path (another seed's weights), seen by a new process's models.
    writeTinyGguf(swapDir, { seed: 7, name: "model" });
    const other = new LlamaModels();
    try {
      const again = await turnOf(createRoleModel("actor", embedded(swapPath, { cacheDir }), { env: {}, llama: other }), ask, [TOOL]);
      expect(again.fromCache).toBe(false);
      expect(again.model).not.toBe(first.model);
    } finally {
      await other.close();
    }
  });
});
