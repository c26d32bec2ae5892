import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startFakeOpenAI, type ScriptItem } from "./support/fake-openai-server.ts";
import { hexa } from "./support/hexa-cli.ts";

/**
 * A run that "works" on a misconfigured server: the actor answers in text only (a server with its tool parser
 * off) and the evolver never answers JSON. Everything is recorded, and the run says so and exits non-zero.
 */
const made: string[] = [];
afterAll(() => made.forEach((d) => rmSync(d, { recursive: true, force: true })));

describe("hexa run on a server whose answers are unusable", () => {
  it("records everything, names each problem in the summary and metrics.json, and exits 2", async () => {
    const server = await startFakeOpenAI();
    try {
      const root = mkdtempSync(join(tmpdir(), "hexa-problems-"));
      made.push(root);
      const text: ScriptItem = { text: "I would place the ball on the left.", quirks: { noUsage: true } };
      const prose: ScriptItem = { text: "The bank looks fine to me." };
      server.push(text, text, ...Array.from({ length: 8 }, () => prose));
      const endpoint = `{model: m, baseURL: ${JSON.stringify(server.url)}, maxRetries: 0, timeoutMs: 20000}`;
      const cfg = join(root, "run.yaml");
      writeFileSync(
        cfg,
        `levels: [two_body_problem]\nagent: hexa\ninit: online\nrounds: 1\nepisodesPerRound: 1\nactor: {maxTurns: 2}\nllm: {actor: ${endpoint}, evolver: ${endpoint}}\n`,
      );
      const runs = join(root, "runs");
      const r = await hexa(["run", cfg, "--runs-dir", runs], { env: { HEXA_ACTOR_API_KEY: "k", HEXA_EVOLVER_API_KEY: "k" } });

      expect(r.status, r.stderr).toBe(2);
      expect(r.stdout).toMatch(/PROBLEM: no episode made a tool call \(1 episode\(s\), 2 turn\(s\)\): .*--tool-call-parser.*--jinja/);
      expect(r.stdout).toMatch(
        /PROBLEM: the evolver failed every bank update \(1\), so the bank never learned anything; the first failure: structured output failed after 2 attempt\(s\): the answer is not JSON/,
      );
      expect(r.stdout).toMatch(/note: 2 of \d+ model call\(s\) came back without usage from the server/);
      expect(r.stdout).toMatch(/tokens \d+ \(\d+ calls, 2 estimated: the server reported no usage\)/);
      expect(r.stderr).toMatch(/warning: llm\.actor: the server reported no token usage/);
      expect(r.stderr).toMatch(/hexa: .*: the run finished, but its result is misleading: no episode made a tool call/);
      const run = join(runs, readdirSync(runs)[0]!);
      expect(existsSync(join(run, "report.html"))).toBe(true);
      const metrics = JSON.parse(readFileSync(join(run, "metrics.json"), "utf8")) as {
        problems: Array<{ kind: string; fatal: boolean }>;
        usage: { total: { estimatedCalls: number } };
      };
      expect(metrics.problems.map((p) => [p.kind, p.fatal])).toEqual([
        ["no_tool_call", true],
        ["evolver_failed_every_update", true],
        ["usage_estimated", false],
      ]);
      expect(metrics.usage.total.estimatedCalls).toBe(2);
      const usage = readFileSync(join(run, "usage.jsonl"), "utf8")
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { role: string; estimated?: boolean });
      expect(usage.filter((u) => u.estimated).map((u) => u.role)).toEqual(["actor", "actor"]);

      const kept = readFileSync(join(run, "notices.jsonl"), "utf8")
        .split("\n")
        .filter(Boolean)
        .map((l) => (JSON.parse(l) as { message: string }).message);
      expect(kept).toContainEqual(expect.stringMatching(/^llm\.actor: the server reported no token usage/));

      const inspected = await hexa(["inspect", run]);
      expect(inspected.status, inspected.stderr).toBe(0);
      expect(inspected.stdout).toMatch(/notice: .*: PROBLEM: no episode made a tool call/);
      expect(inspected.stdout).toMatch(/notice: .*: PROBLEM: the evolver failed every bank update/);
      expect(inspected.stdout).toMatch(/notice: .*: warning: llm\.actor: the server reported no token usage/);
    } finally {
      await server.close();
    }
  }, 180_000);

  it("hexa episode: --temperature none and --max-output-tokens reach the request; a model that never calls a tool exits 1 saying so", async () => {
    const server = await startFakeOpenAI([{ text: "I would aim left." }]);
    try {
      const r = await hexa(
        [
          "episode",
          "two_body_problem",
          "--seed",
          "0",
          "--agent",
          "react",
          "--model",
          "m",
          "--base-url",
          server.url,
          "--max-turns",
          "1",
          "--temperature",
          "none",
          "--max-output-tokens",
          "300",
        ],
        { env: { OPENAI_API_KEY: "" } },
      );
      expect(r.status, r.stderr).toBe(1);
      expect(r.stderr).toMatch(/hexa episode: the model made no tool call in any turn .*--tool-call-parser.*--jinja/);
      const body = server.requests[0]!.body;
      expect(body.temperature).toBeUndefined();
      expect(body.max_tokens).toBe(300);
    } finally {
      await server.close();
    }
  }, 120_000);
});
