import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startFakeOpenAI, type ScriptItem } from "./support/fake-openai-server.ts";
import { hexa } from "./support/hexa-cli.ts";

/**
 * Spend caps and forecasts (docs/spec/method.md §11) through the real CLI and the real client against the local
 * OpenAI-compatible server. A react episode that commits at once is one call; the server reports 100 input
 * and 30,000 output tokens for it, so after one answer the gate expects every later call to cost about
 * 30,000 tokens plus its prompt.
 */

const made: string[] = [];
const tmp = () => {
  const d = mkdtempSync(join(tmpdir(), "hexa-budget-"));
  made.push(d);
  return d;
};
afterAll(() => made.forEach((d) => rmSync(d, { recursive: true, force: true })));

const ENV = { HEXA_ACTOR_API_KEY: "k" };
const commit = (): ScriptItem => ({
  text: "Commit.",
  toolCalls: [{ name: "finish", args: { x: -4.3, y: 4.3, radius: 0.1 } }],
  usage: { prompt: 100, completion: 30_000 },
});
const episodes = (run: string) =>
  readFileSync(join(run, "episodes.jsonl"), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { id: string });
const usage = (run: string) =>
  readFileSync(join(run, "usage.jsonl"), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { costUsd: number; fromCache: boolean; input: number; output: number });

const config = (root: string, url: string, extra = "") => {
  const path = join(root, "react.yaml");
  const endpoint = `{model: m, baseURL: ${JSON.stringify(url)}, maxRetries: 0, timeoutMs: 5000, maxOutputTokens: 40000}`;
  writeFileSync(
    path,
    `levels: [two_body_problem]\nagent: react\nrounds: 2\nepisodesPerRound: 2\nconcurrency: 1\nllm: {actor: ${endpoint}, prices: {m: {input: 1, cachedInput: 0.5, output: 2}}${extra}}\n`,
  );
  return path;
};

describe("hexa run with a spend cap", () => {
  it("prints a forecast and refuses a start above the cap unless --yes, before anything is written", async () => {
    const server = await startFakeOpenAI();
    try {
      const root = tmp();
      const runs = join(root, "runs");
      const cfg = config(root, server.url);
      const r = await hexa(["run", cfg, "--runs-dir", runs, "--budget-tokens", "5000"], { env: ENV });
      expect(r.status, r.stderr).toBe(2);
      expect(r.stderr).toMatch(/forecast: 4 episode\(s\) and 0 bank update\(s\) to go, ~100 calls/);
      expect(r.stderr).toMatch(/llm\.actor m: 4 episode\(s\) × .* \(from the config: 25 turns/);
      expect(r.stderr).toMatch(/hexa: the forecast for this run \(~\$[\d.]+, ~[\d,]+ tokens\) exceeds budget\.tokens 5,000; .*or pass --yes/);
      expect(existsSync(runs)).toBe(false);
      expect(server.requests).toHaveLength(0);

      writeFileSync(join(root, "u.yaml"), readFileSync(cfg, "utf8").replace("prices: {m:", "prices: {other:"));
      const u = await hexa(["run", join(root, "u.yaml"), "--runs-dir", runs, "--budget-usd", "1"], { env: ENV });
      expect(u.stderr).toMatch(/hexa: budget\.usd: llm\.actor\.model "m" has no price in llm\.prices, so its spend cannot be counted; add llm\.prices\.m/);
      expect(existsSync(runs)).toBe(false);
    } finally {
      await server.close();
    }
  });

  it("stops cleanly before the call that would cross the cap, marks the run stopped: budget, and resumes under a raised cap with no episode repeated", async () => {
    const server = await startFakeOpenAI();
    try {
      const root = tmp();
      const runs = join(root, "runs");
      server.push(commit(), commit());
      const first = await hexa(["run", config(root, server.url), "--runs-dir", runs, "--budget-tokens", "70000", "--yes"], { env: ENV });
      expect(first.status, first.stderr).toBe(3);
      expect(first.stderr).toMatch(/starting anyway \(--yes\)/);
      expect(first.stderr).toMatch(
        /hexa: stopped: budget — the next llm\.actor call \(about \$[\d.]+, [\d,]+ tokens\) would cross budget\.tokens 70,000; spent \$0\.1202 and 60,200 tokens on 2 call\(s\)/,
      );
      const run = join(runs, readdirSync(runs)[0]!);
      expect(first.stderr).toContain(`hexa run --resume ${run} --budget-tokens 140000`);
      expect(server.requests).toHaveLength(2); // the third call was never sent
      const kept = episodes(run).map((e) => e.id);
      expect(kept).toHaveLength(2);
      expect(kept.every((id) => id.startsWith("stream/two_body_problem/r1/"))).toBe(true);
      const stopped = JSON.parse(readFileSync(join(run, "stopped.json"), "utf8")) as { reason: string; spent: { tokens: number; calls: number } };
      expect(stopped).toMatchObject({ reason: "budget", spent: { tokens: 60_200, calls: 2 } });

      // The same cap again: the forecast from this run's own usage (2 episodes to go at ~30,100 tokens) says no.
      const again = await hexa(["run", "--resume", run, "--budget-tokens", "70000"], { env: ENV });
      expect(again.status).toBe(2);
      expect(again.stderr).toMatch(/llm\.actor m: 2 episode\(s\) × ~30,100 tokens, \$0\.0601 per episode \(mean of 2 recorded episode\(s\)/);
      expect(again.stderr).toMatch(/exceeds budget\.tokens 70,000 \(already spent: \$0\.1202 and 60,200 tokens on 2 call\(s\)\)/);

      server.push(commit(), commit());
      const resumed = await hexa(["run", "--resume", run, "--budget-tokens", "200000"], { env: ENV });
      expect(resumed.status, resumed.stderr).toBe(0);
      expect(resumed.stderr).toMatch(/budget: budget\.tokens 200,000 \(already spent: .*\); the forecast fits/);
      expect(server.requests).toHaveLength(4);
      const all = episodes(run).map((e) => e.id);
      expect(all.slice(0, 2)).toEqual(kept);
      expect(new Set(all).size).toBe(4);
      expect(all).toHaveLength(4);
      expect(existsSync(join(run, "stopped.json"))).toBe(false);
    } finally {
      await server.close();
    }
  });

  it("does not charge cached responses: a rerun answered from llm.cacheDir finishes under a cap no real call would fit", async () => {
    const server = await startFakeOpenAI();
    try {
      const root = tmp();
      const cache = join(root, "cache");
      server.push(commit(), commit(), commit(), commit());
      const cfg = config(root, server.url, `, cacheDir: ${JSON.stringify(cache)}`);
      const paid = await hexa(["run", cfg, "--runs-dir", join(root, "a")], { env: ENV });
      expect(paid.status, paid.stderr).toBe(0);
      expect(server.requests).toHaveLength(4);
      const b = join(root, "b");
      const cached = await hexa(["run", cfg, "--runs-dir", b, "--budget-tokens", "1000", "--budget-usd", "0.001", "--yes"], { env: ENV });
      expect(cached.status, cached.stderr).toBe(0);
      expect(server.requests).toHaveLength(4);
      const lines = usage(join(b, readdirSync(b)[0]!));
      expect(lines).toHaveLength(4);
      expect(lines.every((l) => l.fromCache && l.costUsd === 0)).toBe(true);
    } finally {
      await server.close();
    }
  });
});
