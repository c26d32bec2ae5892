import { createAppContext } from "../src/app/context.ts";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runIdOf } from "../src/app/run-id.ts";
import { readRunConfig } from "../src/app/run-setup.ts";
import { UsageLine } from "../src/store/run-records.ts";
import { startFakeOpenAI, type ScriptItem } from "./support/fake-openai-server.ts";
import { jsonlOf, tempDirs } from "./support/temp-files.ts";
import { hexa, spawnHexa } from "./support/hexa-cli.ts";

/** The shipped families, as hexa has them with no HEXA_FAMILIES. */
const { families } = await createAppContext({});

// The families are built once, as the CLI builds them before a command reads them.
await families.load();

/**
 * A reward search run by `hexa run` (`method`, docs/spec/reward-search.md §8) through the real CLI with tiny trainings:
 * killed with SIGKILL and resumed with exactly its budget and no finished candidate trained again; and with the
 * LLM proposer against the local OpenAI-compatible server, its calls in usage.jsonl, under the spend cap (a
 * stop, then a resume under a raised cap), counted by the forecast.
 */
const tmp = tempDirs("hexa-strategy-resume-");

const jsonl = jsonlOf;

/** A cartpole config: `top` are top-level lines (`method: eureka`, `search: {budget: 3}`), `rewardSearch` more keys of that slice. */
const config = (dir: string, top: string[], rewardSearch = "", extra: string[] = [], agent = "heuristic") => {
  const path = join(dir, "rs.yaml");
  writeFileSync(
    path,
    [
      "family: reward-search",
      "levels: [cartpole]",
      `agent: ${agent}`,
      "evolver: heuristic",
      "rounds: 1",
      "episodesPerRound: 1",
      "concurrency: 1",
      `rewardSearch: {${[`finishSteps: 1024, cacheDir: ${join(dir, "cache")}, jobsDir: ${join(dir, "jobs")}`, rewardSearch].filter(Boolean).join(", ")}}`,
      ...top,
      ...extra,
    ].join("\n"),
  );
  return path;
};

const onlyRun = (runs: string) => join(runs, readdirSync(runs).find((d) => !d.startsWith("."))!);
/** The candidates whose training a trainer process of `pid` ran: job directories are `<label>-<pid>-<n>`, the label `eureka-cartpole-s0-c<index>`. */
const trainedBy = (dir: string, pid: number) =>
  (existsSync(join(dir, "jobs")) ? readdirSync(join(dir, "jobs")) : []).flatMap((d) => {
    const m = new RegExp(`^eureka-cartpole-s0-c(\\d+)-${pid}-\\d+$`).exec(d);
    return m ? [Number(m[1])] : [];
  });

describe("a search run's id", () => {
  it("names the method and the proposer's agent; a rounds run's id is as before; the old key rewardSearch.strategy gives the same ids", () => {
    const dir = tmp();
    const at = new Date("2026-12-03T10:00:00Z");
    expect(runIdOf(readRunConfig(families, config(dir, ["method: rf-agent"])), families.get("reward-search"), at)).toBe(
      "cartpole__rf-agent-heuristic__s0__20261203T100000Z",
    );
    expect(runIdOf(readRunConfig(families, config(dir, ["method: eureka"], "", [], "react")), families.get("reward-search"), at)).toBe(
      "cartpole__eureka-react__s0__20261203T100000Z",
    );
    expect(runIdOf(readRunConfig(families, config(dir, ["method: rounds"])), families.get("reward-search"), at)).toBe(
      "cartpole__heuristic-off2on-evolving-heuristic-evolver__s0__20261203T100000Z",
    );
    expect(runIdOf(readRunConfig(families, config(dir, [], "strategy: rf-agent")), families.get("reward-search"), at)).toBe(
      "cartpole__rf-agent-heuristic__s0__20261203T100000Z",
    );
    expect(runIdOf(readRunConfig(families, config(dir, [], "strategy: eureka", [], "react")), families.get("reward-search"), at)).toBe(
      "cartpole__eureka-react__s0__20261203T100000Z",
    );
  });
});

describe("a search run killed with SIGKILL", () => {
  it("resumes with exactly the budget, indices 0..budget-1 once each, and no finished candidate trained again", async () => {
    const dir = tmp();
    const runs = join(dir, "runs");
    // One trainer process: the candidates finish one by one, so the kill lands between two of them.
    const cfg = config(dir, ["method: eureka", "search: {budget: 4, eureka: {samples: 2}}"], "trainer: {processes: 1}, trainSteps: 2048");
    const first = spawnHexa(["run", cfg, "--runs-dir", runs], { detached: true });
    const file = () =>
      existsSync(runs) && readdirSync(runs).some((d) => !d.startsWith(".")) ? join(onlyRun(runs), "search", "cartpole", "candidates.jsonl") : "";
    const started = Date.now();
    while (jsonl(file()).length < 1 && Date.now() - started < 90_000) await new Promise((r) => setTimeout(r, 20));
    expect(jsonl(file()).length).toBeGreaterThanOrEqual(1);
    process.kill(-first.child.pid!, "SIGKILL");
    const killed = await first.done;
    expect(killed.signal).toBe("SIGKILL");
    const run = onlyRun(runs);
    expect(run).toMatch(/__eureka-heuristic__s0__/);
    // Read once the process is dead: the candidates it finished.
    const finished = jsonl(file()).map((c) => c.index as number);
    expect(finished.length).toBeGreaterThanOrEqual(1);
    expect(finished.length).toBeLessThan(4);

    const second = spawnHexa(["run", "--resume", run]);
    const again = await second.done;
    expect(again.stderr).not.toMatch(/hexa: /);
    expect(again.status).toBe(0);
    const all = jsonl(file()).map((c) => c.index as number);
    expect(all).toHaveLength(4);
    expect([...all].sort()).toEqual([0, 1, 2, 3]);
    expect(all.slice(0, finished.length)).toEqual(finished);
    // The resumed process sent budget − finished trainings, and no trainer process of it trained a finished one
    // (a candidate killed after its training but before its line is answered by the trainer cache instead).
    expect(again.stderr).toContain(`4/4 candidates (${finished.length} from the log), ${4 - finished.length} trained now`);
    const retrained = trainedBy(dir, second.child.pid!);
    expect(retrained.filter((i) => finished.includes(i))).toEqual([]);
    expect(retrained.length).toBeLessThanOrEqual(4 - finished.length);
  }, 180_000);
});

const ENV = { HEXA_ACTOR_API_KEY: "k" };
const code = (k: number) =>
  `function reward(obs, action, nextObs, info) {\n  const alive = ${k};\n  const upright = -Math.abs(nextObs.theta);\n  return { total: alive + upright, components: { alive, upright } };\n}`;
/** A proposal the server reports as 1,000 tokens in and 200 out. */
const proposal = (k: number): ScriptItem => ({
  text: JSON.stringify({ thought: `Stay alive and keep the pole upright (${k}).`, code: code(k) }),
  usage: { prompt: 1000, completion: 200 },
});

const llmConfig = (dir: string, url: string) =>
  config(
    dir,
    ["method: eureka", "search: {budget: 3, eureka: {samples: 2}}"],
    "trainSteps: 1024",
    [
      `llm: {actor: {model: m, baseURL: ${JSON.stringify(url)}, maxRetries: 0, timeoutMs: 5000, maxOutputTokens: 4000}, prices: {m: {input: 1, cachedInput: 0.5, output: 2}}}`,
    ],
    "react",
  );

describe("a search run with the LLM proposer", () => {
  it("is refused before anything is written when its forecast exceeds the cap (no run directory, no trainer cache)", async () => {
    const server = await startFakeOpenAI();
    try {
      const dir = tmp();
      const runs = join(dir, "runs");
      const r = await hexa(["run", llmConfig(dir, server.url), "--runs-dir", runs, "--budget-tokens", "1000"], { env: ENV });
      expect(r.status, r.stderr).toBe(2);
      expect(r.stderr).toMatch(/hexa: the forecast for this run \(~\$[\d.]+, ~[\d,]+ tokens\) exceeds budget\.tokens 1,000/);
      expect(readdirSync(dir)).toEqual(["rs.yaml"]);
      expect(server.requests).toHaveLength(0);
    } finally {
      await server.close();
    }
  }, 60_000);

  it("records every call in usage.jsonl, stops at the spend cap with stopped.json and exit 3, and resumes under a raised cap without retraining", async () => {
    const server = await startFakeOpenAI();
    try {
      const dir = tmp();
      const runs = join(dir, "runs");
      // The first iteration's two proposals (2,400 tokens) fit 2,600; the refinement's estimate does not.
      server.push(proposal(1), proposal(2), proposal(3));
      const first = await hexa(["run", llmConfig(dir, server.url), "--runs-dir", runs, "--budget-tokens", "2600", "--yes"], { env: ENV });
      expect(first.stderr).toMatch(/forecast: 3 search candidate\(s\) to go, ~3 calls/);
      expect(first.stderr).toMatch(/llm\.actor m: 3 candidate\(s\) × ~[\d,]+ tokens, \$[\d.]+ per candidate \(from the config: one proposal per candidate/);
      expect(first.status, first.stderr).toBe(3);
      expect(first.stderr).toMatch(
        /hexa: stopped: budget — the next llm\.actor call .* would cross budget\.tokens 2,600; spent \$0\.0028 and 2,400 tokens on 2 call\(s\)/,
      );
      expect(server.requests).toHaveLength(2);
      const run = onlyRun(runs);
      expect(run).toMatch(/__eureka-react__s0__/);
      expect(first.stderr).toContain(`hexa run --resume ${run} --budget-tokens`);
      const stopped = JSON.parse(readFileSync(join(run, "stopped.json"), "utf8"));
      expect(stopped).toMatchObject({ reason: "budget", spent: { tokens: 2400, calls: 2 } });
      const search = join(run, "search", "cartpole");
      expect(jsonl(join(search, "candidates.jsonl")).map((c) => c.index)).toEqual([0, 1]);
      const usage = () => jsonl(join(run, "usage.jsonl")).map((l) => UsageLine.parse(l));
      expect(usage()).toHaveLength(2);
      for (const [i, l] of usage().entries()) {
        expect(l).toMatchObject({
          role: "actor",
          model: "m",
          phase: "search",
          level: "cartpole",
          round: 0,
          seed: 0,
          candidate: i,
          input: 1000,
          output: 200,
          fromCache: false,
          priced: true,
        });
        expect(l.costUsd).toBeCloseTo((1000 * 1 + 200 * 2) / 1e6, 12);
      }
      const jobsBefore = readdirSync(join(dir, "jobs")).filter((d) => d.startsWith("eureka-")).length;
      expect(jobsBefore).toBe(2);

      // The resume's forecast is made from this run's recorded calls: one candidate to go.
      const resumed = await hexa(["run", "--resume", run, "--budget-tokens", "100000"], { env: ENV });
      expect(resumed.stderr).toMatch(/forecast: 1 search candidate\(s\) to go, ~1 calls/);
      expect(resumed.stderr).toMatch(/llm\.actor m: 1 candidate\(s\) × ~1,200 tokens, .*1 call\(s\) per candidate × the mean of 2 recorded search call\(s\)/);
      expect(resumed.status, resumed.stderr).toBe(0);
      expect(resumed.stderr).toContain("3/3 candidates (2 from the log), 1 trained now");
      expect(server.requests).toHaveLength(3);
      const candidates = jsonl(join(search, "candidates.jsonl"));
      expect(candidates.map((c) => c.index)).toEqual([0, 1, 2]);
      expect(candidates[2]!.operator).toBe("refine");
      expect(usage().map((l) => l.candidate)).toEqual([0, 1, 2]);
      expect(usage().reduce((n, l) => n + l.input + l.output, 0)).toBe(3600);
      expect(readdirSync(join(dir, "jobs")).filter((d) => d.startsWith("eureka-"))).toHaveLength(3);
      expect(existsSync(join(run, "stopped.json"))).toBe(false);
      expect(existsSync(join(run, "final-scores.json"))).toBe(true);
      // metrics.json holds the totals hexa compare reports for the cell
      expect(JSON.parse(readFileSync(join(run, "metrics.json"), "utf8")).usage.total).toMatchObject({ calls: 3, input: 3000, output: 600 });
      expect(resumed.stdout).toContain("tokens 3600 (3 calls), cost $0.0042");
    } finally {
      await server.close();
    }
  }, 120_000);
});
