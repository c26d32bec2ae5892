import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { AuditLine } from "../src/llm/audit-log.ts";
import { hexa } from "./support/hexa-cli.ts";
import { tempDirs } from "./support/temp-files.ts";
import { writeTinyGguf } from "./support/tiny-gguf.ts";

const tmp = tempDirs("hexa-embedded-run-");

/** The pre-flight on (vitest.config.ts turns it off for the other tests): an embedded role is recorded, not probed. */
const ON = { HEXA_NO_DOCTOR: "0" };

describe("hexa run with an embedded actor (a generated GGUF, no server)", () => {
  it("plays an Interphyre episode, logs its calls at cost 0, records the file, and verifies with the file deleted", async () => {
    const root = tmp();
    const modelPath = writeTinyGguf(root);
    const runs = join(root, "runs");
    const cfg = join(root, "run.yaml");
    // One thread: on a machine whose cores are busy, llama.cpp's threads wait on each other.
    const actor = `{provider: llama-cpp, model: ${JSON.stringify(modelPath)}, gpu: false, threads: 1, parallel: 1, contextSize: 32768, maxOutputTokens: 48, temperature: 0}`;
    writeFileSync(
      cfg,
      `levels: [down_to_earth]\nagent: react\nevolver: heuristic\nrounds: 1\nepisodesPerRound: 1\nconcurrency: 1\nactor: {maxTurns: 2}\nllm: {actor: ${actor}}\n`,
    );

    const run = await hexa(["run", cfg, "--runs-dir", runs], { env: ON });
    expect(run.status, run.stderr).toBe(0);
    const [id] = readdirSync(runs).filter((d) => !d.startsWith(".") && d !== "doctor-cache.json");
    const dir = join(runs, id!);

    const lines = readFileSync(join(dir, "llm-log.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => AuditLine.parse(JSON.parse(l)));
    expect(lines.length).toBeGreaterThan(0);
    const served = JSON.parse(readFileSync(join(dir, "served-models.json"), "utf8"));
    const sha256: string = served.roles.actor.gguf.sha256;
    expect(served.roles.actor).toMatchObject({ requested: modelPath, fingerprint: `sha256:${sha256}`, gguf: { architecture: "llama" } });
    for (const line of lines) {
      expect([line.role, line.endpoint, line.modelReported, line.error]).toEqual(["actor", `gguf:sha256:${sha256}`, `gguf:sha256:${sha256}`, undefined]);
      expect(line.usage!.input).toBeGreaterThan(0);
      expect(line.usage!.output).toBeGreaterThan(0);
    }
    const metrics = JSON.parse(readFileSync(join(dir, "metrics.json"), "utf8"));
    expect(metrics.usage.total).toMatchObject({ calls: lines.length, costUsd: 0, unpricedCalls: 0 });

    rmSync(modelPath);
    const verified = await hexa(["verify", dir]);
    expect(verified.status, verified.stderr).toBe(0);
    expect(verified.stdout).toMatch(/identical/);
    // A 15k-token prompt per turn on one thread of a shared machine.
  }, 300_000);
});
