import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { AuditLine } from "../src/llm/audit-log.ts";
import { hexa } from "./support/hexa-cli.ts";
import { jsonlOf, tempDirs } from "./support/temp-files.ts";
import { writeTinyGguf } from "./support/tiny-gguf.ts";

const tmp = tempDirs("hexa-embedded-evolver-");

describe("hexa run with an embedded evolver (a generated GGUF, no server)", () => {
  it("answers each bank update as JSON held by the schema's grammar, and commits each round as an update or a labelled refusal", async () => {
    const root = tmp();
    const modelPath = writeTinyGguf(root);
    const runs = join(root, "runs");
    const cfg = join(root, "run.yaml");
    // One thread: on a machine whose cores are busy, llama.cpp's threads wait on each other.
    const evolver = `{provider: llama-cpp, model: ${JSON.stringify(modelPath)}, gpu: false, threads: 1, parallel: 1, contextSize: 16384, maxOutputTokens: 512, temperature: 0}`;
    writeFileSync(
      cfg,
      `levels: [two_body_problem]\nagent: heuristic\nevolver: llm\nrounds: 1\nepisodesPerRound: 1\noffline: {episodes: 1}\nconcurrency: 1\nllm: {evolver: ${evolver}}\n`,
    );

    const run = await hexa(["run", cfg, "--runs-dir", runs]);
    expect(run.stderr).not.toMatch(/^\s+at /m);
    const [id] = readdirSync(runs).filter((d) => !d.startsWith(".") && d !== "doctor-cache.json");
    const dir = join(runs, id!);

    const lines = readFileSync(join(dir, "llm-log.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => AuditLine.parse(JSON.parse(l)));
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) {
      expect([line.role, line.endpoint.startsWith("gguf:sha256:"), line.error]).toEqual(["evolver", true, undefined]);
      // The grammar holds the shape: the answer parses as the schema's object, whatever a random model writes in it.
      expect(JSON.parse(line.response!.text)).toEqual({ skills: expect.any(Array) });
    }
    const bank = jsonlOf(join(dir, "bank-events.jsonl"));
    expect(bank.filter((l) => l.commit).map((l) => l.commit.round)).toEqual([0, 1]);
    const events = bank.filter((l) => l.event).map((l) => l.event);
    expect(events.length).toBeGreaterThan(0);
    for (const event of events)
      if (event.type === "evolver_failure") expect(event.error).toMatch(/^structured output failed after \d+ attempt\(s\): .+/);
      else expect(event).toMatchObject({ type: expect.stringMatching(/./), round: expect.any(Number) });
    // A run whose every update was refused says so and exits 2 (its result would mislead); one that learned exits 0.
    if (events.every((e) => e.type === "evolver_failure"))
      expect([run.status, run.stderr]).toEqual([2, expect.stringMatching(/the evolver failed every bank update/)]);
    else expect(run.status, run.stderr).toBe(0);
  }, 300_000);
});
