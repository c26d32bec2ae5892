import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { SCRIPTED_INTENTS_MODEL, startScriptedIntentsModel } from "../bench/intents-model.ts";
import { IntentsResults } from "../levels/reward-search/cli/bench-intents-table.ts";
import { IterationRecord, TrainingRecord } from "../src/search/p2p-log.ts";
import { hexa } from "./support/hexa-cli.ts";

/**
 * `hexa bench intents` on one tiny F-backed case against the scripted model (bench/intents-model.ts): the table's
 * numbers are the search's own records (trainings, iterations, llm-log.jsonl, the final policy's F), and a rerun
 * reads the finished case back without a model call.
 */
const dir = mkdtempSync(join(tmpdir(), "hexa-bench-intents-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const jsonl = (path: string) =>
  readFileSync(path, "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>);

describe("hexa bench intents", () => {
  it("tables a case from its search's files, and a rerun reads it back", async () => {
    const out = join(dir, "bench");
    const s = await startScriptedIntentsModel();
    const models = ["--model", SCRIPTED_INTENTS_MODEL, "--base-url", s.url, "--judge-model", SCRIPTED_INTENTS_MODEL, "--judge-base-url", s.url];
    const args = [
      "bench",
      "intents",
      "--cases",
      "f-hopper",
      "--budget",
      "2",
      "--train-steps",
      "2048",
      "--judged-steps",
      "10",
      "--processes",
      "1",
      "--out",
      out,
      ...models,
    ];
    let first;
    try {
      first = await hexa(args);
    } finally {
      await s.close();
    }
    expect(first.status, first.stderr).toBe(0);
    const results = IntentsResults.parse(JSON.parse(readFileSync(join(out, "results.json"), "utf8")));
    expect(results.cases).toHaveLength(1);
    const r = results.cases[0]!;
    const caseDir = join(out, "cases", "f-hopper");
    const trainings = readdirSync(join(caseDir, "trainings")).map((f) => TrainingRecord.parse(JSON.parse(readFileSync(join(caseDir, "trainings", f), "utf8"))));
    const iterations = jsonl(join(caseDir, "iterations.jsonl")).map((x) => IterationRecord.parse(x));
    const log = jsonl(join(caseDir, "llm-log.jsonl"));

    expect(trainings).toHaveLength(2);
    expect(r.envSteps).toBe(trainings.reduce((a, t) => a + (t.outcome.kind === "result" ? t.outcome.steps : 0), 0));
    expect(r.envSteps).toBeGreaterThan(0);
    expect(r.iterations).toBe(iterations.length);
    expect(r.iterations).toBe(2);
    expect(r.bestScore).toBe(Math.max(...iterations.map((i) => i.score)));
    expect(r.judgedSuccess).toBe(r.bestScore! >= 0.9);
    expect(r.models.calls).toBe(log.length);
    // Every role answered: the code judge's author, the reviser's first reward and its revision (a turn with its lineage tools).
    expect(log.map((l) => l.outputSchema)).toEqual(expect.arrayContaining(["judge_code", "reward_proposal"]));
    expect(log.filter((l) => (l.tools as string[]).includes("set_lesson_tier")).length).toBeGreaterThanOrEqual(2);
    expect(r.models.stages.reviser.calls).toBe(
      log.filter((l) => l.outputSchema === "reward_proposal" || (l.tools as string[]).includes("set_lesson_tier")).length,
    );
    expect(r.models.input).toBe(log.reduce((a, l) => a + (l.usage as { input: number }).input, 0));
    // F of the best iteration's final policy, from its training record, against hopper's solved threshold (10 m).
    const best = iterations.find((i) => i.score === r.bestScore)!;
    const bestTraining = trainings.find((t) => t.iteration === best.iteration && t.config === best.best)!;
    const f = bestTraining.outcome.kind === "result" ? bestTraining.outcome.checkpoints.at(-1)!.fitness : null;
    expect(r.fitness).toEqual({ f, solvedAt: 10, solved: f! >= 10, agrees: f! >= 10 === r.judgedSuccess });
    const row = readFileSync(join(out, "results.md"), "utf8")
      .split("\n")
      .find((l) => l.startsWith("| f-hopper |"))!;
    expect(row).toContain(`| ${r.envSteps.toLocaleString("en-US")} |`);
    expect(row).toContain(`| ${log.length} |`);
    expect(first.stdout).toContain(`F-backed cases: judged success agrees with F's solved verdict on ${r.fitness!.agrees ? 1 : 0} of 1`);

    // The server is gone: a rerun of the finished case asks no model and tables the same numbers.
    const again = await hexa(args);
    expect(again.status, again.stderr).toBe(0);
    expect(IntentsResults.parse(JSON.parse(readFileSync(join(out, "results.json"), "utf8"))).cases).toEqual(results.cases);
    expect(jsonl(join(caseDir, "llm-log.jsonl"))).toHaveLength(log.length);
  }, 560_000);

  it("refuses a bench without llm.judge, and an intents flag given to reward-search, before anything is written", async () => {
    const out = join(dir, "refused");
    const noJudge = await hexa(["bench", "intents", "--cases", "f-hopper", "--out", out]);
    expect(noJudge.status).toBe(2);
    expect(noJudge.stderr).toContain("--judge-model: an intent has no F");
    const stray = await hexa(["bench", "reward-search", "--judged-steps", "10", "--out", out]);
    expect(stray.status).toBe(2);
    expect(stray.stderr).toContain("--judged-steps: only hexa bench intents reads it, not hexa bench reward-search");
    expect(existsSync(out)).toBe(false);
  }, 60_000);
});
