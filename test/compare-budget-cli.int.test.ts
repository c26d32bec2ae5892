import { existsSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { startFakeOpenAI, type ScriptItem } from "./support/fake-openai-server.ts";
import { jsonlOf, tempDirs } from "./support/temp-files.ts";
import { hexa } from "./support/hexa-cli.ts";

/**
 * A spend cap over a whole `hexa compare` grid and over a `hexa eval` (docs/spec/method.md §11), through the real CLI against
 * the local OpenAI-compatible server. As in budget-cli.int.test.ts, an episode is one call that the server bills
 * at 100 input and 30,000 output tokens, so after one answer the gate expects ~30,000 tokens per call.
 */

const tmp = tempDirs("hexa-grid-budget-");

const ENV = { HEXA_ACTOR_API_KEY: "k" };
const commit = (): ScriptItem => ({
  text: "Commit.",
  toolCalls: [{ name: "finish", args: { x: -4.3, y: 4.3, radius: 0.1 } }],
  usage: { prompt: 100, completion: 30_000 },
});
const jsonl = jsonlOf;
type Usage = { input: number; output: number; fromCache: boolean };
const tokensOf = (lines: Usage[]) => lines.reduce((n, l) => n + (l.fromCache ? 0 : l.input + l.output), 0);

const config = (root: string, url: string, o: { rounds: number; episodes: number }) => {
  const path = join(root, "react.yaml");
  const endpoint = `{model: m, baseURL: ${JSON.stringify(url)}, maxRetries: 0, timeoutMs: 5000, maxOutputTokens: 40000}`;
  writeFileSync(
    path,
    `levels: [two_body_problem]\nagent: react\nrounds: ${o.rounds}\nepisodesPerRound: ${o.episodes}\nconcurrency: 1\nllm: {actor: ${endpoint}, prices: {m: {input: 1, cachedInput: 0.5, output: 2}}}\n`,
  );
  return path;
};

describe("hexa compare with a cap over the whole grid", () => {
  it("refuses a forecast over the cap before anything is written, stops the grid at the cap, and finishes under a raised cap with no episode repeated", async () => {
    const server = await startFakeOpenAI();
    try {
      const root = tmp();
      const out = join(root, "grid");
      const cfg = config(root, server.url, { rounds: 1, episodes: 2 });
      // c1 (25 turns) is forecast far dearer than c2 (5 turns), so it gets most of the cap and finishes.
      const grid = ["compare", cfg, "--grid", "actor.maxTurns=25,5", "--runs", "1", "--heldout", "0", "--out", out];

      const refused = await hexa([...grid, "--budget-tokens", "5000"], { env: ENV });
      expect(refused.status, refused.stderr).toBe(2);
      expect(refused.stderr).toMatch(/forecast: 4 episode\(s\) and 0 bank update\(s\) to go/);
      expect(refused.stderr).toMatch(/c1 run 0: 2 episode\(s\), 0 bank update\(s\): ~[\d,]+ tokens/);
      expect(refused.stderr).toMatch(
        /hexa: the forecast for this grid \(~\$[\d.]+, ~[\d,]+ tokens\) exceeds budget\.tokens 5,000; raise the cap.*or pass --yes/,
      );
      expect(existsSync(out)).toBe(false);
      expect(server.requests).toHaveLength(0);

      const gridAxis = await hexa(["compare", cfg, "--grid", "budget.tokens=1000,2000", "--runs", "1", "--out", out], { env: ENV });
      expect(gridAxis.status).toBe(2);
      expect(gridAxis.stderr).toMatch(
        /hexa: --grid budget\.tokens: the spend cap is the whole grid's, not a cell's; give it with --budget-usd \/ --budget-tokens/,
      );
      expect(existsSync(out)).toBe(false);

      server.push(commit(), commit(), commit());
      const first = await hexa([...grid, "--budget-tokens", "100000", "--yes"], { env: ENV });
      expect(first.status, first.stderr).toBe(3);
      expect(first.stderr).toMatch(/starting anyway \(--yes\)/);
      expect(first.stderr).toMatch(
        /hexa: compare stopped: budget — c2 run 0's run stopped at its share of the grid's cap .*; 1 of 2 run\(s\) finished and are kept.*the grid has spent \$[\d.]+ and 90,300 tokens on 3 call\(s\) of budget\.tokens 100,000\. No results are written yet: rerun the same hexa compare command with a raised cap \(e\.g\. --budget-tokens 200000\)/,
      );
      expect(server.requests).toHaveLength(3); // c2's second call was never sent
      expect(existsSync(join(out, "results.json"))).toBe(false);
      const runs = join(out, "runs");
      const dirs = readdirSync(runs).filter((d) => existsSync(join(runs, d, "run.json")));
      expect(dirs).toHaveLength(2);
      const spent = dirs.reduce((n, d) => n + tokensOf(jsonl<Usage>(join(runs, d, "usage.jsonl"))), 0);
      expect(spent).toBeLessThanOrEqual(100_000);
      const c2 = dirs.find((d) => existsSync(join(runs, d, "stopped.json")))!;
      expect(c2).toBeDefined();
      expect(jsonl(join(runs, c2, "episodes.jsonl"))).toHaveLength(1);

      server.push(commit());
      const second = await hexa([...grid, "--budget-tokens", "200000"], { env: ENV });
      expect(second.status, second.stderr).toBe(0);
      expect(second.stderr).toMatch(/forecast: 1 episode\(s\) and 0 bank update\(s\) to go/);
      expect(second.stderr).toMatch(/budget: budget\.tokens 200,000 \(already spent: \$[\d.]+ and 90,300 tokens on 3 call\(s\)\); the forecast fits/);
      expect(server.requests).toHaveLength(4);
      expect(existsSync(join(out, "results.json"))).toBe(true);
      const ids = dirs.flatMap((d) => jsonl<{ id: string }>(join(runs, d, "episodes.jsonl")).map((e) => `${d}/${e.id}`));
      expect(ids).toHaveLength(4);
      expect(new Set(ids).size).toBe(4);
      expect(dirs.some((d) => existsSync(join(runs, d, "stopped.json")))).toBe(false);
    } finally {
      await server.close();
    }
  });
});

describe("hexa eval with a spend cap", () => {
  it("refuses a forecast over the cap, stops at the cap keeping the finished episodes, and continues the same evaluation under a raised cap", async () => {
    const server = await startFakeOpenAI();
    try {
      const root = tmp();
      const runs = join(root, "runs");
      server.push(commit());
      const made = await hexa(["run", config(root, server.url, { rounds: 1, episodes: 1 }), "--runs-dir", runs], { env: ENV });
      expect(made.status, made.stderr).toBe(0);
      const run = join(runs, readdirSync(runs)[0]!);
      const evalDir = join(run, "eval");
      const evalFiles = () => (existsSync(evalDir) ? readdirSync(evalDir).filter((f) => /^\d{4}-.*\.jsonl$/.test(f)) : []);

      const refused = await hexa(["eval", run, "--count", "3", "--budget-tokens", "5000", "--trust-run-config"], { env: ENV });
      expect(refused.status, refused.stderr).toBe(2);
      expect(refused.stderr).toMatch(/llm\.actor m: 3 episode\(s\) × ~30,100 tokens, .* \(mean of 1 recorded episode\(s\)/);
      expect(refused.stderr).toMatch(/hexa: the forecast for this evaluation \(~\$[\d.]+, ~90,300 tokens\) exceeds budget\.tokens 5,000/);
      expect(evalFiles()).toHaveLength(0);
      expect(server.requests).toHaveLength(1);

      server.push(commit(), commit());
      const stopped = await hexa(["eval", run, "--count", "3", "--budget-tokens", "70000", "--yes", "--trust-run-config"], { env: ENV });
      expect(stopped.status, stopped.stderr).toBe(3);
      expect(stopped.stderr).toMatch(
        /hexa: stopped: budget — the next llm\.actor call .* would cross budget\.tokens 70,000; spent \$[\d.]+ and 60,200 tokens on 2 call\(s\); the evaluation is marked stopped: budget/,
      );
      expect(stopped.stderr).toMatch(/Raise the cap and continue .*: hexa eval .* --seeds 'two_body_problem=\d+,\d+,\d+' --budget-tokens 140000/);
      expect(server.requests).toHaveLength(3);
      expect(evalFiles()).toHaveLength(1);
      const file = join(evalDir, evalFiles()[0]!);
      const kept = jsonl<{ id: string }>(file).map((e) => e.id);
      expect(kept).toHaveLength(2);
      expect(tokensOf(jsonl<Usage>(join(evalDir, "usage.jsonl")))).toBe(60_200);
      expect(tokensOf(jsonl<Usage>(join(run, "usage.jsonl")))).toBe(30_100); // the run's own record is untouched

      server.push(commit());
      const resumed = await hexa(["eval", run, "--count", "3", "--budget-tokens", "200000", "--trust-run-config"], { env: ENV });
      expect(resumed.status, resumed.stderr).toBe(0);
      expect(resumed.stderr).toMatch(/continuing .*: 2 played before its spend cap stopped it/);
      expect(resumed.stderr).toMatch(/forecast: 1 episode\(s\)/);
      expect(server.requests).toHaveLength(4);
      expect(evalFiles()).toHaveLength(1);
      const all = jsonl<{ id: string }>(file).map((e) => e.id);
      expect(all.slice(0, 2)).toEqual(kept);
      expect(new Set(all).size).toBe(3);
      expect(resumed.stdout).toMatch(/two_body_problem .*\d\/3 /);
      expect(existsSync(join(evalDir, "stopped.json"))).toBe(false);
    } finally {
      await server.close();
    }
  });
});
