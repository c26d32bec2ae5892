import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { AuditLine } from "../src/llm/audit-log.ts";
import { hexa } from "./support/hexa-cli.ts";
import { tempDirs } from "./support/temp-files.ts";
import { writeTinyGguf } from "./support/tiny-gguf.ts";

const tmp = tempDirs("hexa-embedded-eval-");

/** The toy family: its prompt is short, so a generated model reads it in little time on a busy machine. */
const TOY = { HEXA_FAMILIES: "examples/toy-family/family.ts", HEXA_NO_DOCTOR: "0" };

const auditLines = (file: string) =>
  readFileSync(file, "utf8")
    .trim()
    .split("\n")
    .map((l) => AuditLine.parse(JSON.parse(l)));

describe("an embedded actor (a generated GGUF) under spend caps, then hexa eval of its run", () => {
  it("forecasts its price as 0 (embedded), counts its tokens, and evaluates the run with the same model", async () => {
    const root = tmp();
    const modelPath = writeTinyGguf(root);
    const runs = join(root, "runs");
    const cfg = join(root, "run.yaml");
    // One thread: on a machine whose cores are busy, llama.cpp's threads wait on each other.
    const actor = `{provider: llama-cpp, model: ${JSON.stringify(modelPath)}, gpu: false, threads: 1, parallel: 1, contextSize: 8192, maxOutputTokens: 32, temperature: 0}`;
    writeFileSync(
      cfg,
      `family: toy\nlevels: [guess_small]\nagent: react\nevolver: heuristic\nrounds: 1\nepisodesPerRound: 1\nconcurrency: 1\nactor: {maxTurns: 2}\nllm: {actor: ${actor}}\n`,
    );

    // budget.usd needs every role priced: an embedded one is, at 0.
    const run = await hexa(["run", cfg, "--runs-dir", runs, "--budget-usd", "1", "--budget-tokens", "10000000"], { env: TOY });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stderr).toMatch(/llm\.actor \S+tiny\.gguf: 1 episode\(s\) × ~[\d,]+ tokens, 0 \(embedded\) per episode/);
    expect(run.stderr).toContain(`+ 0 for embedded ${modelPath}`);
    expect(run.stderr).not.toMatch(/unpriced/);
    const [id] = readdirSync(runs).filter((d) => !d.startsWith(".") && !d.endsWith(".yaml") && d !== "doctor-cache.json");
    const dir = join(runs, id!);

    const ev = await hexa(["eval", dir, "--trust-run-config", "--count", "1", "--budget-usd", "1", "--budget-tokens", "10000000"], { env: TOY });
    expect(ev.status, ev.stderr).toBe(0);
    expect(ev.stderr).toMatch(/0 \(embedded\) per episode/);
    expect(ev.stdout).toMatch(/tokens [1-9]\d*, cost \$0\.0000/);
    const sha256: string = JSON.parse(readFileSync(join(dir, "served-models.json"), "utf8")).roles.actor.gguf.sha256;
    const lines = auditLines(join(dir, "eval", "llm-log.jsonl"));
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) {
      expect([line.role, line.endpoint, line.error]).toEqual(["actor", `gguf:sha256:${sha256}`, undefined]);
      expect(line.usage!.input).toBeGreaterThan(0);
    }
  }, 300_000);
});
