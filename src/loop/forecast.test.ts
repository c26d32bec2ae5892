import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { toyFamily } from "../../examples/toy-family/family.ts";
import { rewardSearchFamily } from "../../levels/reward-search/family.ts";
import { testTrainer } from "../../levels/reward-search/search/test-trainer.ts";
import type { TrainerPool } from "../../levels/reward-search/trainer/pool.ts";
import type { UsageLine } from "../store/run-records.ts";
import { forecastRun, forecastText, recordedWork } from "./forecast.ts";
import { parseRunConfig } from "./run-config.ts";

/** The forecast of a family's whole search (docs/spec/method.md §11): candidates to go × the calls of one; no episodes. */
const family = rewardSearchFamily(() => testTrainer() as unknown as TrainerPool);
const cfgOf = (method: string, budget: number) =>
  parseRunConfig(
    {
      family: "reward-search",
      levels: ["cartpole", "pendulum"],
      agent: "react",
      method,
      search: { budget },
      llm: { actor: { model: "m" }, prices: { m: { input: 1, cachedInput: 0.5, output: 2 } } },
    },
    "test",
    [family],
  );
const line = (o: Partial<UsageLine>): UsageLine => ({
  schemaVersion: 1,
  role: "actor",
  model: "m",
  input: 1000,
  output: 200,
  cached: 0,
  costUsd: 0.0014,
  priced: true,
  fromCache: false,
  phase: "stream",
  level: "cartpole",
  round: 1,
  seed: 0,
  ...o,
});
const none = new Set<string>();
const made: string[] = [];
afterAll(() => made.forEach((d) => rmSync(d, { recursive: true, force: true })));

describe("the forecast of a search run", () => {
  it("counts every level's candidates × the strategy's calls per candidate from the config, and no episode", () => {
    const eureka = forecastRun({ cfg: cfgOf("eureka", 4), family, recorded: none, committed: none, earlier: [] });
    expect(eureka).toMatchObject({ episodes: 0, updates: 0, candidates: 8, calls: 8 });
    expect(eureka.tokens).toBeGreaterThan(8 * 600);
    expect(forecastText(eureka)).toMatch(/^forecast: 8 search candidate\(s\) to go, ~8 calls/);
    expect(eureka.basis[0]).toMatch(/^llm\.actor m: 8 candidate\(s\) × ~[\d,]+ tokens, \$[\d.]+ per candidate \(from the config: one proposal per candidate/);
    // rf-agent: a proposal, a self-evaluation and a thought alignment per candidate
    const rf = forecastRun({ cfg: cfgOf("rf-agent", 4), family, recorded: none, committed: none, earlier: [] });
    expect(rf).toMatchObject({ candidates: 8, calls: 24 });
    // Its re-debug calls depend on the code the model writes: said beside the figure, not guessed into it.
    expect(rf.basis[0]).toMatch(/; not forecast: up to 3 re-debug call\(s\) for each candidate whose code fails its check \(search\.rfAgent\.debugTries\)/);
    expect(eureka.basis[0]).not.toContain("not forecast");
  });

  it("on a resume counts only the candidates candidates.jsonl lacks, each call sized by the model's recorded search calls", () => {
    const dir = mkdtempSync(join(tmpdir(), "hexa-forecast-"));
    made.push(dir);
    mkdirSync(join(dir, "search", "cartpole"), { recursive: true });
    const done = (index: number) =>
      JSON.stringify({
        schemaVersion: 1,
        index,
        strategy: "rf-agent",
        iteration: 0,
        operator: "initial",
        parent: null,
        related: [],
        thought: "t",
        code: "c",
        trainSeed: 1,
        evalSeeds: [2],
        outcome: { kind: "error", error: "reward_code", message: "m" },
        feedback: "f",
      });
    // cartpole has finished 2 of its 3 (one of them twice, as a kill between a line and its retry may leave it); pendulum none
    writeFileSync(join(dir, "search", "cartpole", "candidates.jsonl"), `${[done(0), done(2), done(0)].join("\n")}\n`);
    const earlier = [[line({ phase: "search", round: 0, candidate: 0 }), line({ phase: "search", round: 0, candidate: 1, input: 3000, output: 400 })]];
    const f = forecastRun({ cfg: cfgOf("rf-agent", 3), family, recorded: none, committed: none, earlier, dir });
    expect(f).toMatchObject({ candidates: 1 + 3, calls: 4 * 3, tokens: 4 * 3 * 2300 });
    expect(f.basis[0]).toContain("3 call(s) per candidate × the mean of 2 recorded search call(s)");
  });

  it("keeps a search's calls out of the per-episode figures of a rounds forecast", () => {
    const runs = [[line({}), line({}), line({ phase: "search", round: 0, candidate: 0, input: 99_999 })]];
    expect(recordedWork(runs, "actor", "m")).toMatchObject({ units: 1, calls: 2, input: 2000, output: 400 });
  });
});

describe("the forecast of an embedded role (provider: llama-cpp)", () => {
  const embedded = { provider: "llama-cpp", model: "models/tiny.gguf" };

  it("prices a search's proposer at 0 (embedded), not unpriced, and still counts its tokens", () => {
    const cfg = parseRunConfig(
      { family: "reward-search", levels: ["cartpole"], agent: "react", method: "eureka", search: { budget: 2 }, llm: { actor: embedded } },
      "test",
      [family],
    );
    const f = forecastRun({ cfg, family, recorded: none, committed: none, earlier: [] });
    expect(f).toMatchObject({ candidates: 2, calls: 2, usd: 0, unpriced: [], embedded: ["models/tiny.gguf"] });
    expect(f.tokens).toBeGreaterThan(0);
    expect(f.basis[0]).toMatch(/^llm\.actor models\/tiny\.gguf: 2 candidate\(s\) × ~[\d,]+ tokens, 0 \(embedded\) per candidate/);
    expect(forecastText(f)).toMatch(/~\$0\.0000 \+ 0 for embedded models\/tiny\.gguf \(its tokens count towards budget\.tokens\)\n/);
    expect(forecastText(f)).not.toContain("unpriced");
  });

  it("prices an embedded actor at 0 beside a priced evolver, whose price the total keeps", () => {
    const toy = toyFamily();
    const cfg = parseRunConfig(
      {
        family: "toy",
        levels: ["guess_small"],
        agent: "hexa",
        evolver: "llm",
        init: "online",
        update: "evolving",
        rounds: 1,
        episodesPerRound: 2,
        llm: { actor: embedded, evolver: { model: "m" }, prices: { m: { input: 1, cachedInput: 0.5, output: 2 } } },
      },
      "test",
      [toy],
    );
    const f = forecastRun({ cfg, family: toy, recorded: none, committed: none, earlier: [] });
    expect(f.episodes).toBeGreaterThan(0);
    expect(f.updates).toBeGreaterThan(0);
    expect(f.embedded).toEqual(["models/tiny.gguf"]);
    expect(f.unpriced).toEqual([]);
    expect(f.usd).toBeGreaterThan(0);
    expect(f.basis.find((b) => b.startsWith("llm.actor"))).toMatch(/0 \(embedded\) per episode/);
    expect(f.basis.find((b) => b.startsWith("llm.evolver"))).toMatch(/\$[\d.]+ per update/);
  });
});
