import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { JudgmentFile } from "../cli/judge-file.ts";
import { parseCriteria } from "../judging/criteria.ts";
import { tinyRecord } from "../judging/fixtures/tiny-record.ts";
import { judgeTrajectory, makeJudge } from "../judging/judge.ts";
import { checkpointJudgmentName } from "../search/p2p-judgment-folder.ts";
import { P2P_SCHEMA_VERSION, type IterationRecord, type PlanRecord, type TrainingRecord } from "../../../src/search/p2p-log.ts";
import type { LineageReads } from "../../../src/search/p2p-ports.ts";
import { foldEvents, EMPTY_BANK } from "../../../src/store/bank.ts";
import { REASON_MAX } from "../../../src/store/lesson.ts";
import { lessonAdded } from "../../../src/store/lesson-log.ts";
import { boundedAnswer, MAX_TOOL_ANSWER, reviserTools } from "./p2p-reviser-tools.ts";

/** The p2p reviser's tools on a two-iteration lineage (two configurations, one seed each): reads, bounds, refusals, tier changes. */

const SEED = 16;
const code = (k: number, extra = "") => `function reward(obs) {\n  const alive = ${k};${extra}\n  return { total: alive, components: { alive } };\n}`;

const plan = (i: number, c: string): PlanRecord => ({
  schemaVersion: P2P_SCHEMA_VERSION,
  iteration: i,
  parent: i === 0 ? null : i - 1,
  code: c,
  configs: [
    { directive: "revised", hp: { learningRate: 0.0003 } },
    { directive: "different", hp: { learningRate: 0.001 } },
  ],
  revision: {
    diagnosis: `diagnosis ${i}`,
    lesson: i ? "Keep the alive weight small." : "",
    rewardChanges: i ? ["alive 2"] : [],
    structural: false,
    noChange: false,
    hpChanges: {},
    plateau: false,
  },
});

const record = (i: number, scores: [number, number]): IterationRecord => ({
  schemaVersion: P2P_SCHEMA_VERSION,
  iteration: i,
  parent: i === 0 ? null : i - 1,
  configs: scores.map((s, c) => ({
    config: c,
    directive: c ? "different" : "revised",
    hp: { learningRate: c ? 0.001 : 0.0003 },
    seeds: [SEED],
    scores: [s],
    mean: s,
    std: 0,
  })),
  best: scores[1] > scores[0] ? 1 : 0,
  score: Math.max(...scores),
  newBest: true,
});

const training = (i: number, c: number, score: number): TrainingRecord => ({
  schemaVersion: P2P_SCHEMA_VERSION,
  iteration: i,
  config: c,
  seed: SEED,
  hp: { learningRate: c ? 0.001 : 0.0003 },
  outcome: {
    kind: "result",
    steps: 1000,
    checkpoints: [
      { step: 500, fraction: 0.5, fitness: score * 100 },
      { step: 1000, fraction: 1, fitness: score * 200 },
    ],
    diagnostics: { approxKl: 0.03, clipFrac: 0.2, entropy: 0.5, explainedVariance: 0.4 },
    terms: { alive: 1 },
    feedback: `feedback of it${i} c${c}`,
    cached: false,
  },
  judged: [
    { step: 500, fraction: 0.5, score: score / 2, detail: "half way" },
    { step: 1000, fraction: 1, score, detail: `judged it${i} c${c}` },
  ],
  score,
});

const lessonBank = () => {
  const added = lessonAdded(EMPTY_BANK, { text: "Reward the upright pole.", round: 1, source: "cartpole, p2p iteration 0" });
  return foldEvents([added]);
};

const lineage = (codes = [code(1), code(2)]): LineageReads => {
  const trainings = new Map([0, 1].flatMap((i) => [0, 1].map((c) => [`${i}-${c}`, training(i, c, 0.2 + 0.1 * i + 0.05 * c)] as const)));
  return {
    plans: codes.map((c, i) => plan(i, c)),
    iterations: [record(0, [0.2, 0.25]), record(1, [0.3, 0.35])],
    training: (i, c, s) => (s === SEED ? trainings.get(`${i}-${c}`) : undefined),
    lessons: lessonBank().lessons ?? [],
    passAt: 0.9,
  };
};

const call = (name: string, args: unknown = {}, argsError?: string) => ({ name, args, ...(argsError ? { argsError } : {}) });

describe("the p2p reviser's read tools", () => {
  it("offers each tool with a JSON schema of its arguments", () => {
    const t = reviserTools(lineage(), 2);
    expect(t.specs.map((s) => s.name)).toEqual([
      "lineage",
      "reward_code",
      "reward_diff",
      "checkpoints",
      "training",
      "judgment",
      "configs",
      "lessons",
      "set_lesson_tier",
    ]);
    expect(t.specs.find((s) => s.name === "training")!.parameters).toMatchObject({ required: ["iteration", "config", "seed"] });
  });

  it("reads the lineage, an iteration's code, the diff of two, checkpoints, a training, configurations and lessons", () => {
    const t = reviserTools(lineage(), 2);
    expect(t.answer(call("lineage"))).toContain("- iteration 1 (based on 0): score 0.35, best config 1, new best; alive 2");
    expect(t.answer(call("reward_code", { iteration: 1 }))).toContain(
      "diagnosis: diagnosis 1\nlesson: Keep the alive weight small.\n```js\nfunction reward(obs) {\n  const alive = 2;",
    );
    const diff = t.answer(call("reward_diff", { from: 0, to: 1 }));
    expect(diff).toContain("--- iteration 0\n+++ iteration 1");
    expect(diff).toContain("-  const alive = 1;\n+  const alive = 2;");
    expect(t.answer(call("reward_diff", { from: 1, to: 1 }))).toBe("iterations 1 and 1 have the same reward code");
    const cps = t.answer(call("checkpoints", { iteration: 0 }));
    expect(cps).toContain("| 1 | 100 % | 0.25 | 0 | 0 |");
    expect(cps).toContain("  step 1000 (100 %): 0.25 — judged it0 c1");
    const tr = t.answer(call("training", { iteration: 1, config: 0, seed: SEED }));
    expect(tr).toContain("PPO diagnostics: approx KL 0.03, clip fraction 0.2, entropy 0.5, explained variance 0.4");
    expect(tr).toContain("feedback:\nfeedback of it1 c0");
    expect(t.answer(call("configs", { iteration: 1 }))).toContain("- config 1 (different): learningRate 0.001; seeds 16; scores 0.35; mean 0.35, std 0");
    expect(t.answer(call("lessons"))).toBe("- l1_1 [STRONG] (cartpole, p2p iteration 0): Reward the upright pole.");
  });

  it("refuses a bad argument naming the field and the valid range, never throwing", () => {
    const t = reviserTools(lineage(), 2);
    expect(t.answer(call("reward_code", { iteration: 5 }))).toBe("refused: iteration: must be one of this search's judged iterations, 0–1 (got 5)");
    expect(t.answer(call("reward_diff", { from: -1, to: 1.5 }))).toBe(
      "refused: from: must be one of this search's judged iterations, 0–1 (got -1); to: must be one of this search's judged iterations, 0–1 (got 1.5)",
    );
    expect(t.answer(call("checkpoints", { iteration: "1" }))).toMatch(/^refused: iteration: must be one of this search's judged iterations, 0–1 \(got "1"\)/);
    expect(t.answer(call("training", { iteration: 1, config: 2, seed: SEED }))).toBe("refused: config: iteration 1 has configs 0–1 (got 2)");
    expect(t.answer(call("training", { iteration: 1, config: 0, seed: 3 }))).toBe("refused: seed: iteration 1's seeds are 16 (got 3)");
    expect(t.answer(call("reward_code", { iteration: 1, path: "/etc/passwd" }))).toMatch(/^refused: .*path/);
    expect(t.answer(call("read_file", { path: "/etc/passwd" }))).toBe(
      'refused: no tool named "read_file"; the tools are lineage, reward_code, reward_diff, checkpoints, training, judgment, configs, lessons, set_lesson_tier',
    );
    expect(t.answer(call("reward_code", {}, "reward_code: arguments are not JSON"))).toBe("refused: reward_code: arguments are not JSON");
  });

  it("cuts an answer at the bound with a note saying how much was left out", () => {
    const long = code(2, `\n  // ${"x".repeat(9000)}`);
    const answer = reviserTools(lineage([code(1), long]), 2).answer(call("reward_code", { iteration: 1 }));
    expect(answer.length).toBeLessThan(MAX_TOOL_ANSWER + 100);
    expect(answer).toMatch(/\n… \(cut: \d+ more characters left out; ask for a narrower read\)$/);
    expect(boundedAnswer("short")).toBe("short");
  });
});

describe("set_lesson_tier", () => {
  it("records a checked change, shows it in the lessons read, and allows a later change from the new tier", () => {
    const t = reviserTools(lineage(), 2);
    expect(t.answer(call("set_lesson_tier", { id: "l1_1", to: "SOFT", reason: "iteration 1 scored higher without it" }))).toBe(
      "recorded: lesson l1_1 STRONG → SOFT; it applies to the bank with this iteration's plan",
    );
    expect(t.answer(call("lessons"))).toContain("l1_1 [SOFT]");
    expect(t.answer(call("lessons"))).toContain("round 2: STRONG → SOFT by p2p reviser: iteration 1 scored higher without it");
    t.answer(call("set_lesson_tier", { id: "l1_1", to: "RETIRED", reason: "contradicted by iteration 1" }));
    expect(t.tierChanges()).toEqual([
      { id: "l1_1", from: "STRONG", to: "SOFT", reason: "iteration 1 scored higher without it" },
      { id: "l1_1", from: "SOFT", to: "RETIRED", reason: "contradicted by iteration 1" },
    ]);
  });

  it("refuses a missing lesson, an unchanged tier, an empty or overlong reason and an unknown tier, recording nothing", () => {
    const t = reviserTools(lineage(), 2);
    expect(t.answer(call("set_lesson_tier", { id: "l9", to: "SOFT", reason: "r" }))).toBe('refused: lesson.id: no such lesson (got "l9"); use one of l1_1');
    expect(t.answer(call("set_lesson_tier", { id: "l1_1", to: "STRONG", reason: "r" }))).toMatch(/^refused: lesson.tier: 'l1_1' is already STRONG/);
    expect(t.answer(call("set_lesson_tier", { id: "l1_1", to: "SOFT", reason: "  " }))).toMatch(/^refused: lesson.reason: empty/);
    expect(t.answer(call("set_lesson_tier", { id: "l1_1", to: "SOFT", reason: "r".repeat(REASON_MAX + 1) }))).toMatch(/^refused: reason: /);
    expect(t.answer(call("set_lesson_tier", { id: "l1_1", to: "GONE", reason: "r" }))).toMatch(/^refused: to: /);
    expect(t.tierChanges()).toEqual([]);
  });
});

/** A code judge's judgment.json of one checkpoint, as hexa judge writes it. */
const judgmentFile = async (): Promise<JudgmentFile> => {
  const leaf = { id: "1", name: "balanced", metric: "m", threshold: "t", partial: "p" };
  const judge = makeJudge("j", {
    intent: "balance",
    tree: parseCriteria({ order: "sequential", children: [leaf] }),
    code: 'function judge(t) { return [{ id: "1", value: 1, score: 1, passed: true, note: "up all along" }]; }',
  });
  const judgment = await judgeTrajectory(judge, "trajectory-1.bin", tinyRecord());
  const synthesis = { kind: "single" as const, judge: "code" as const, score: judgment.score, passed: true, rule: "code judge alone" };
  return {
    schemaVersion: 1,
    task: "cartpole",
    policy: "policy.json",
    intent: judge.intent,
    judge: { kind: "code", id: judge.id, version: 1, hash: judge.hash, label: "code judge j v1" },
    episodes: [{ seed: 1, trajectory: "trajectory-1.bin", steps: 10, fitness: 300, score: judgment.score }],
    picks: (["p10", "median", "p90"] as const).map((pick) => ({ pick, seed: 1, score: judgment.score, synthesis, judgment })),
    notes: [],
  };
};

describe("the judgment tool", () => {
  it("reads a judged checkpoint's folder in the search's own directory: the synthesis and the code judge's leaves", async () => {
    const dir = mkdtempSync(join(tmpdir(), "hexa-p2p-tools-"));
    const folder = join(dir, checkpointJudgmentName(1, 0, SEED, 1000));
    mkdirSync(folder, { recursive: true });
    writeFileSync(join(folder, "judgment.json"), JSON.stringify(await judgmentFile()));
    const t = reviserTools({ ...lineage(), dir }, 2);
    const answer = t.answer(call("judgment", { iteration: 1, config: 0, seed: SEED, step: 1000 }));
    expect(answer).toContain(`judgments/it1-c0-s${SEED}-step1000: intent "balance"`);
    expect(answer).toContain("p10 (seed 1): score 1; code alone 1");
    expect(answer).toContain("  leaf 1 balanced: PASS, value 1, score 1 — up all along");
    expect(t.answer(call("judgment", { iteration: 1, config: 1, seed: SEED, step: 1000 }))).toBe(
      `no judgment folder judgments/it1-c1-s${SEED}-step1000: this checkpoint was judged without one (the fitness judge keeps none)`,
    );
    symlinkSync(folder, join(dir, checkpointJudgmentName(0, 0, SEED, 1000)));
    expect(t.answer(call("judgment", { iteration: 0, config: 0, seed: SEED, step: 1000 }))).toBe(
      `judgments/it0-c0-s${SEED}-step1000 is not a plain folder; it is not read`,
    );
  });

  it("refuses a step the training was not judged at, and says when the lineage has no folders", () => {
    const t = reviserTools(lineage(), 2);
    expect(t.answer(call("judgment", { iteration: 1, config: 0, seed: SEED, step: 7 }))).toBe(
      "refused: step: the training's judged steps are 500, 1000 (got 7)",
    );
    expect(t.answer(call("judgment", { iteration: 1, config: 0, seed: SEED, step: 500 }))).toBe("no judgment folders: this search keeps its lineage in memory");
  });
});
