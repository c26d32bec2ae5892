import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { F_BACKED_CASES } from "./bench-intents-cases.ts";
import { caseResult } from "./bench-intents-score.ts";
import { intentsMarkdown, intentsTotals } from "./bench-intents-table.ts";

const root = mkdtempSync(join(tmpdir(), "hexa-intents-score-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const hopper = F_BACKED_CASES[0]!;

const training = (iteration: number, seed: number, steps: number, finalF: number) => ({
  schemaVersion: 1,
  iteration,
  config: 0,
  seed,
  hp: { learningRate: 0.0003 },
  outcome: {
    kind: "result",
    steps,
    checkpoints: [
      { step: Math.floor(steps / 2), fraction: 0.5, fitness: 0 },
      { step: steps, fraction: 1, fitness: finalF },
    ],
    diagnostics: null,
    terms: {},
    feedback: "",
    cached: false,
  },
  judged: [
    { step: Math.floor(steps / 2), fraction: 0.5, score: 0.1, detail: "" },
    { step: steps, fraction: 1, score: 0.2, detail: "" },
  ],
  score: 0.2,
});

const iteration = (i: number, score: number, seeds: number[]) => ({
  schemaVersion: 1,
  iteration: i,
  parent: i === 0 ? null : 0,
  configs: [{ config: 0, directive: "revised", hp: {}, seeds, scores: seeds.map(() => score), mean: score, std: 0 }],
  best: 0,
  score,
  newBest: i === 0,
});

const call = (schema: string | undefined, input: number, output: number, model = "gpt-4o-mini", fromCache = false) => ({
  schemaVersion: 1,
  ts: "2026-01-01T00:00:00.000Z",
  role: "judge",
  endpoint: "http://127.0.0.1:1/v1",
  modelRequested: model,
  modelReported: model,
  messagesSha256: "0",
  tools: [],
  ...(schema ? { outputSchema: schema } : {}),
  response: { text: "{}", toolCalls: [] },
  usage: { input, output, cached: 0 },
  latencyMs: 1,
  fromCache,
});

/** A search directory as a finished p2p intent search leaves it: 2 iterations of 2 seeds, 4 model calls. */
const searchDir = (name: string, finalF: [number, number]) => {
  const dir = join(root, name);
  mkdirSync(join(dir, "trainings"), { recursive: true });
  const header = { schemaVersion: 1, strategy: "p2p", task: "hopper", seed: 0, budget: 4, trainSteps: 4096, proposer: "m", options: { passAt: 0.5 } };
  writeFileSync(join(dir, "search.json"), JSON.stringify(header));
  writeFileSync(join(dir, "iterations.jsonl"), `${[iteration(0, 0.2, [0, 1]), iteration(1, 0.6, [0, 1])].map((x) => JSON.stringify(x)).join("\n")}\n`);
  for (const it of [0, 1])
    for (const s of [0, 1])
      writeFileSync(join(dir, "trainings", `it${it}-c0-s${s}.json`), JSON.stringify(training(it, s, 4096 + s, it === 1 ? finalF[s]! : 0)));
  const calls = [
    call("judge_code", 1000, 100),
    call("p2p_revision", 2000, 200),
    call("vision_verdict", 3000, 10, "scripted"),
    call(undefined, 500, 50, "gpt-4o-mini", true),
  ];
  writeFileSync(join(dir, "llm-log.jsonl"), `${calls.map((x) => JSON.stringify(x)).join("\n")}\n`);
  return dir;
};

describe("an intents bench case from its search's files", () => {
  it("sums env steps over the lineage's trainings, takes the best iteration's F over its seeds, and counts calls by stage", () => {
    const r = caseResult(searchDir("a", [8, 14]), hopper, { wallS: 12, passAt: 0.9, solvedAt: 10, error: null });
    expect(r).toMatchObject({
      passAt: 0.5,
      bestScore: 0.6,
      judgedSuccess: true,
      iterations: 2,
      trainings: 4,
      envSteps: 2 * (4096 + 4097),
      judgedCheckpoints: 8,
    });
    // F: the mean of the best iteration's final policies (8 and 14 m), against hopper's 10 m: solved, as judged.
    expect(r.fitness).toEqual({ f: 11, solvedAt: 10, solved: true, agrees: true });
    // The cache hit made no call; the scripted model has no price.
    expect(r.models).toMatchObject({ calls: 3, input: 6000, output: 310, unpriced: 1 });
    expect(r.models.costUsd).toBeGreaterThan(0);
    expect(r.models.stages).toEqual({ case: { calls: 1, tokens: 1100 }, reviser: { calls: 1, tokens: 2200 }, checkpoint: { calls: 1, tokens: 3010 } });
  });

  it("says when judged success and F's verdict disagree, and tables a stopped case with its error", () => {
    const r = caseResult(searchDir("b", [2, 4]), hopper, { wallS: 3, passAt: 0.9, solvedAt: 10, error: null });
    expect(r.fitness).toEqual({ f: 3, solvedAt: 10, solved: false, agrees: false });
    const stopped = caseResult(join(root, "never-started"), hopper, { wallS: 1, passAt: 0.9, solvedAt: 10, error: "llm.judge: connection refused" });
    expect(stopped).toMatchObject({ passAt: 0.9, bestScore: null, judgedSuccess: false, iterations: 0, envSteps: 0, fitness: null });
    expect(intentsTotals([r, stopped])).toContain("F-backed cases: judged success agrees with F's solved verdict on 0 of 1 (F solved on 0)");
    const settings = {
      command: "hexa bench intents",
      seed: 0,
      budget: 2,
      configs: 1,
      trainSeeds: 1,
      trainSteps: 4096,
      passAt: 0.9,
      judgedEpisodes: 1,
      judgedSteps: 50,
      models: { reviser: "m", judge: "m", vision: null },
    };
    const md = intentsMarkdown(settings, [r, stopped]);
    expect(md).toContain("| f-hopper (stopped: llm.judge: connection refused) | locomotion | easy | – | no | 0 | 0 |");
    expect(md).toContain("stopped with an error: f-hopper");
  });
});
