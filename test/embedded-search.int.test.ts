import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { AuditLine } from "../src/llm/audit-log.ts";
import { hexa } from "./support/hexa-cli.ts";
import { jsonlOf, tempDirs } from "./support/temp-files.ts";
import { writeTinyGguf } from "./support/tiny-gguf.ts";
import { searchArgs } from "./verify/verify-support.ts";

const tmp = tempDirs("hexa-embedded-search-");

describe("hexa search with an embedded proposer (a generated GGUF, no server)", () => {
  it("answers every proposal as schema-valid JSON held by grammar, at cost 0, and verifies with the file deleted", async () => {
    const root = tmp();
    const modelPath = writeTinyGguf(root);
    const llm = join(root, "llm.yaml");
    // One thread: on a machine whose cores are busy, llama.cpp's threads wait on each other.
    writeFileSync(
      llm,
      `llm:\n  actor: {provider: llama-cpp, model: ${JSON.stringify(modelPath)}, gpu: false, threads: 1, parallel: 1, contextSize: 16384, maxOutputTokens: 64, temperature: 0}\n`,
    );
    const out = join(root, "search");
    const cache = join(root, "cache");
    const args = searchArgs(out, cache, "--proposer", "llm", "--llm-config", llm).map((a) => (a === "2" ? "1" : a));

    const search = await hexa(args, { env: { OPENAI_API_KEY: "", OPENAI_BASE_URL: "" } });
    expect(search.status, search.stderr).toBe(0);
    const lines = readFileSync(join(out, "llm-log.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => AuditLine.parse(JSON.parse(l)));
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) {
      expect([line.role, line.endpoint.startsWith("gguf:sha256:"), line.error]).toEqual(["actor", true, undefined]);
      // The proposal's schema (thought, code: non-empty strings), held by the grammar on the first try.
      const answer = JSON.parse(line.response!.text);
      expect(answer).toEqual({ thought: expect.stringMatching(/./), code: expect.stringMatching(/./) });
    }
    const candidates = jsonlOf(join(out, "candidates.jsonl"));
    expect(candidates.map((c) => c.thought)).not.toContain("(no usable answer)");
    expect(JSON.parse(readFileSync(join(out, "search-config.json"), "utf8")).settings.llm).toEqual({ model: modelPath });

    rmSync(modelPath);
    const verified = await hexa(["verify", out, "--trainer-cache", cache]);
    expect(verified.status, verified.stderr).toBe(0);
    expect(verified.stdout).toMatch(/^identical: 1 candidates?, \d+ model exchanges?/);
  }, 300_000);
});
