import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { AuditLine } from "../src/llm/audit-log.ts";
import { hexa } from "./support/hexa-cli.ts";
import { tempDirs } from "./support/temp-files.ts";
import { writeTinyGguf } from "./support/tiny-gguf.ts";

const tmp = tempDirs("hexa-embedded-transfer-");

describe("hexa transfer with an embedded synthesiser (a generated GGUF, no server)", () => {
  it("asks the embedded model for the bank, its answer JSON held to the bank's schema by grammar, then audits it", async () => {
    const root = tmp();
    const modelPath = writeTinyGguf(root);
    const config = join(root, "llm.yaml");
    writeFileSync(
      config,
      `llm:\n  synthesiser: {provider: llama-cpp, model: ${JSON.stringify(modelPath)}, gpu: false, threads: 1, parallel: 1, contextSize: 32768, maxOutputTokens: 4096, temperature: 0}\n`,
    );
    const out = join(root, "t", "bank.json");
    const r = await hexa([
      "transfer",
      "--from",
      "two_body_problem",
      "--from",
      "down_to_earth",
      "--to",
      "catapult",
      "--config",
      config,
      "--eval-seeds",
      "0",
      "--out",
      out,
    ]);
    expect(r.stderr).toContain("synthesiser llm");
    const lines = readFileSync(join(root, "t", "llm-log.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => AuditLine.parse(JSON.parse(l)));
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) {
      expect([line.role, line.endpoint.startsWith("gguf:sha256:"), line.error]).toEqual(["synthesiser", true, undefined]);
      const answer = JSON.parse(line.response!.text);
      expect(answer).toMatchObject({ skills: expect.any(Array), mistakes: expect.any(Array) });
    }
    // The random model's entries are well-formed and cite nothing real: the audit drops every one, and says so.
    expect(r.stderr).toMatch(/nothing transfers from two_body_problem, down_to_earth \([1-9]\d* candidate entries, all dropped or none made\)/);
    expect(r.status).toBe(2);
  }, 300_000);
});
