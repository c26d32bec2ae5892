import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { AuditLine } from "../src/llm/audit-log.ts";
import { hexa } from "./support/hexa-cli.ts";
import { jsonlOf, tempDirs } from "./support/temp-files.ts";
import { writeTinyGguf } from "./support/tiny-gguf.ts";
import { tinyRewardConfig } from "./support/tiny-reward-run.ts";

const tmp = tempDirs("hexa-embedded-reward-search-");

describe("hexa run, family reward-search, with an embedded actor (a generated GGUF, no server)", () => {
  it("plays an episode whose every turn is one grammar-held tool call that parses, and records it", async () => {
    const root = tmp();
    const modelPath = writeTinyGguf(root);
    const runs = join(root, "runs");
    const cfg = join(root, "rs.yaml");
    // One thread: on a machine whose cores are busy, llama.cpp's threads wait on each other.
    const actor = `{provider: llama-cpp, model: ${JSON.stringify(modelPath)}, gpu: false, threads: 1, parallel: 1, contextSize: 16384, maxOutputTokens: 256, temperature: 0}`;
    // A random model writes no working reward: the run shows its tool calls are well-formed, not that they are good.
    // 256 output tokens: a byte-level vocabulary spends one token per character of the call.
    const config = tinyRewardConfig()
      .replace("agent: heuristic", "agent: react")
      .replace("offline: {episodes: 1}\n", "")
      .replace("actor: {maxTurns: 3}", "actor: {maxTurns: 2}");
    writeFileSync(cfg, `${config}llm: {actor: ${actor}}\n`);

    const run = await hexa(["run", cfg, "--runs-dir", runs]);
    expect(run.status, run.stderr).toBe(0);
    const [id] = readdirSync(runs).filter((d) => !d.startsWith(".") && d !== "doctor-cache.json");
    const dir = join(runs, id!);

    const lines = readFileSync(join(dir, "llm-log.jsonl"), "utf8")
      .trim()
      .split("\n")
      .map((l) => AuditLine.parse(JSON.parse(l)));
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) {
      expect([line.role, line.endpoint.startsWith("gguf:sha256:"), line.error]).toEqual(["actor", true, undefined]);
      // One call per turn, to one of the tools offered, its arguments an object (the grammar holds the shape).
      expect(line.response!.toolCalls).toHaveLength(1);
      const [call] = line.response!.toolCalls;
      expect(line.tools).toContain(call!.name);
      expect(call!.args).toBeTypeOf("object");
    }
    const [episode, ...more] = jsonlOf(join(dir, "episodes.jsonl"));
    expect(more).toEqual([]);
    expect(episode!.id).toMatch(/^stream\/cartpole\//);
    const steps = episode!.trajectory.steps as Array<{ tool: string }>;
    expect(steps.length).toBeGreaterThan(0);
    expect(steps.map((s) => s.tool)).toEqual(lines.map((l) => l.response!.toolCalls[0]!.name).slice(0, steps.length));
  }, 300_000);
});
