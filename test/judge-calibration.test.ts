import { describe, expect, it } from "vitest";
import { CalibrationData, judgeStats, renderCalibrationPage } from "../bench/judge-calibration-page.ts";
import { bootstrapUnits, ranks, repeatSpread, spearman } from "../bench/judge-calibration-stats.ts";
import { scriptedSynthesiserTurn } from "../bench/judge-calibration-synthesiser.ts";
import { scriptedVisionReply } from "../bench/judge-calibration-vision-model.ts";

describe("the calibration statistics", () => {
  it("ranks ties by the mean of the ranks they span", () => {
    expect(ranks([10, 20, 20, 5])).toEqual([2, 3.5, 3.5, 1]);
    expect(ranks([1, 1, 1])).toEqual([2, 2, 2]);
  });

  it("Spearman's ρ: 1 and −1 for monotone pairs whatever the scale, the textbook value with ties, NaN without spread", () => {
    expect(spearman([1, 2, 3, 4], [1, 8, 27, 1000])).toBeCloseTo(1, 12);
    expect(spearman([1, 2, 3, 4], [4, 3, 2, 1])).toBeCloseTo(-1, 12);
    // Pearson of the ranks [1, 2.5, 2.5, 4] and [1, 3, 2, 4]: 4.5 / sqrt(4.5 · 5).
    expect(spearman([1, 2, 2, 3], [10, 30, 20, 40])).toBeCloseTo(4.5 / Math.sqrt(4.5 * 5), 12);
    expect(spearman([0, 0, 0], [1, 2, 3])).toBeNaN();
    expect(() => spearman([1, 2], [1])).toThrow(/2 values against 1/);
  });

  it("bootstraps a statistic over units: seeded, the interval around the value, undefined resamples counted and left out", () => {
    const xs = [1, 2, 3, 4, 5, 6, 7, 8];
    const meanOf = (u: readonly number[]) => u.reduce((s, i) => s + xs[i]!, 0) / u.length;
    const a = bootstrapUnits(xs.length, meanOf, { resamples: 500, seed: 3 });
    expect(a).toEqual(bootstrapUnits(xs.length, meanOf, { resamples: 500, seed: 3 }));
    expect(a.value).toBe(4.5);
    expect(a.low).toBeLessThan(4.5);
    expect(a.high).toBeGreaterThan(4.5);
    expect(a.low).toBeGreaterThanOrEqual(1);
    expect(a.undefinedResamples).toBe(0);
    // Undefined whenever unit 0 is drawn: about 1 − (7/8)^8 ≈ 66 % of the resamples.
    const b = bootstrapUnits(8, (u) => (u.includes(0) ? NaN : meanOf(u)), { resamples: 1000, seed: 1 });
    expect(b.undefinedResamples).toBeGreaterThan(550);
    expect(b.undefinedResamples).toBeLessThan(750);
    expect(b.low).toBeGreaterThanOrEqual(2);
    expect(bootstrapUnits(0, () => 1)).toMatchObject({ n: 0, resamples: 0, undefinedResamples: 0, low: NaN });
  });

  it("the spread over repeats is each unit's sample sd, then their mean and largest", () => {
    const s = repeatSpread([[0.15, 0.25], [0.5, 0.5], [], [0.975, 0.925]]);
    expect(s.units).toBe(3);
    expect(s.max).toBeCloseTo(Math.SQRT1_2 / 10, 12);
    expect(s.mean).toBeCloseTo((Math.SQRT1_2 / 10 + Math.SQRT1_2 / 20) / 3, 12);
  });
});

const v = (score: number | null, threshold = 0.9) => ({ score, passed: score === null ? null : score >= threshold });
const fitnessVerdict = (f: number) => ({ score: Math.min(1, Math.max(0, f / 10)), passed: f >= 10 });
const episode = (seed: number, fitness: number, code: (number | null)[]) => ({
  seed,
  steps: 1000,
  fitness,
  judges: { fitness: code.map(() => fitnessVerdict(fitness)), code: code.map((c) => v(c)), synthesis: code.map((c) => v(c)) },
});

const data = () =>
  CalibrationData.parse({
    schemaVersion: 1,
    command: "node --import tsx bench/judge-calibration.ts --write-page",
    rerun: "npm run bench:judge-calibration -- --judge-model MODEL --judge-base-url URL --write-page",
    commit: "0123abcd",
    machine: "Test CPU, 2 cores",
    started: "2026-01-02T03:04:05.000Z",
    finished: "2026-01-02T03:14:05.000Z",
    loadStart: [1, 2, 3],
    loadEnd: [4, 5, 6],
    model: { kind: "scripted", name: "scripted-judge", note: "written by hand" },
    tasks: [{ id: "t", solved: 10, fitness: "distance [m]" }],
    intent: "each task's own description",
    repeats: 2,
    episodesPerPolicy: 2,
    passThreshold: 0.9,
    resamples: 200,
    judges: [
      { name: "fitness", label: "fitness judge", model: null, notRun: null, notes: [] },
      { name: "code", label: "code judge", model: "scripted-judge", notRun: null, notes: ["t, repeat 1: authored"] },
      { name: "vision", label: "vision judge", model: null, notRun: "no llm.vision configured", notes: [] },
      { name: "synthesis", label: "synthesis", model: "scripted-judge", notRun: null, notes: [] },
    ],
    policies: [
      { task: "t", name: "a", expected: "poor", trainSeconds: null, cached: false, episodes: [episode(1, 0, [0.1, 0.3]), episode(2, 2, [0.2, 0.2])] },
      { task: "t", name: "b", expected: "mediocre", trainSeconds: 12.4, cached: false, episodes: [episode(1, 5, [0.6, 0.6]), episode(2, 5, [0.4, 0.4])] },
      { task: "t", name: "c", expected: "good", trainSeconds: 40, cached: true, episodes: [episode(1, 12, [0.95, 0.85]), episode(2, 10, [1, 1])] },
    ],
  });

describe("the calibration page, rendered from its data", () => {
  it("computes ρ, agreement with F's solved verdict and the spread from the episodes' verdicts", () => {
    const s = judgeStats(data(), "code");
    expect(s.pooled.value).toBeCloseTo(1, 12);
    expect(s.perTask).toEqual([{ task: "t", n: 3, rho: expect.closeTo(1, 12) }]);
    // c's second episode on repeat 2 scores 0.85 < 0.9 while its F (12) is solved: 11 of 12 agree.
    expect(s.agreement).toMatchObject({ agree: 11, total: 12 });
    expect(s.agreement.value).toBeCloseTo(11 / 12, 12);
    expect(s.spread.max).toBeCloseTo(Math.SQRT1_2 / 10, 12);
  });

  it("states the model, the rerun command, the load, each judge's numbers, a judge not run, and every policy", () => {
    const page = renderCalibrationPage(data(), "Judges", "data/judge-calibration.json");
    expect(page.split("\n")[0]).toBe("# Judges");
    expect(page).toContain("- Code judges authored by: scripted-judge (scripted): written by hand");
    expect(page).toContain("- Rerun with real models: `npm run bench:judge-calibration -- --judge-model MODEL --judge-base-url URL --write-page`");
    expect(page).toContain("- Load average (1 / 5 / 15 min): 1.00 / 2.00 / 3.00 at start, 4.00 / 5.00 / 6.00 at end");
    expect(page).toContain("vision judge: not run (no llm.vision configured)");
    expect(page).toMatch(
      /Spearman ρ with the fitness judge's score, pooled over tasks: 1\.00 \[[-\d.]+, 1\.00\] \(95 % bootstrap over 3 policies, 200 resamples, \d+ undefined left out\)/,
    );
    expect(page).toContain("agreement with F's solved / not-solved verdict: 11 of 12 episode judgments (F solved on 2 of 6 episodes); 0.92 [");
    expect(page).toContain("spread over 2 repeats (sd of a policy's score): mean 0.035, max 0.071 over 3 policies");
    expect(page).toContain("note: t, repeat 1: authored");
    expect(page).toContain("| t | c | good | 11.00 | 2 of 2 | 1.000 | 0.950 | 0.950 | 40 (cached) |");
    expect(page).toContain("| t | a | poor | 1.00 | 0 of 2 | 0.100 | 0.200 | 0.200 | – |");
  });

  it("a policy whose judge gave no score on a repeat is scored from its other repeats, and counted", () => {
    const d = data();
    d.policies[0]!.episodes[0]!.judges.code![1] = { score: null, passed: null, note: "authoring failed" };
    const s = judgeStats(d, "code");
    expect(s.agreement.total).toBe(11);
    expect(s.scored).toBe(3);
    expect(renderCalibrationPage(d, "J", "d.json")).toContain("| t | a | poor | 1.00 | 0 of 2 | 0.100 | 0.150 | 0.200 | – |");
  });
});

describe("the calibration bench's scripted vision model and synthesiser", () => {
  const png = (byte: number) => `data:image/png;base64,${Buffer.from([137, 80, 78, 71, byte]).toString("base64")}`;
  const body = (name: string, images: number[], times: number[], intent = "Run. Time limit: 1000 steps (8 s, truncation).\nGoal: go far.") => ({
    model: "v",
    response_format: { type: "json_schema", json_schema: { name } },
    messages: [
      { role: "system", content: "You judge." },
      {
        role: "user",
        content: [
          {
            type: "text",
            text: `The behaviour wanted: "${intent}"\n\nYour criteria, fixed before you saw the episode:\n1. First one\n2. Second one\n3. Third one\n`,
          },
          ...images.flatMap((b, i) => [
            { type: "text", text: `\nFrame ${i + 1} (t = ${times[i]} s):` },
            { type: "image_url", image_url: { url: png(b) } },
          ]),
        ],
      },
    ],
  });

  it("scores from the images' bytes and the frames' times alone: motion share times the share of the stated time limit", () => {
    // 3 of 4 consecutive pairs differ; the last frame at 4 s of an 8 s limit: 0.75 × 0.5 → 0.4.
    const v = JSON.parse(scriptedVisionReply(body("vision_verdict", [1, 2, 2, 3, 4], [0, 1, 2, 3, 4]))) as Record<string, unknown>;
    expect(v.intent_score).toBe(0.4);
    expect((v.criteria as { criterion: string }[]).map((c) => c.criterion)).toEqual(["First one", "Second one", "Third one"]);
    expect(v.failure_tags).toEqual(["ended_early"]);
    // The same frames reaching the limit, every pair differing: 1.0; one frame repeated throughout: 0.
    expect(JSON.parse(scriptedVisionReply(body("vision_verdict", [1, 2, 3], [0, 4, 8]))).intent_score).toBe(1);
    expect(JSON.parse(scriptedVisionReply(body("vision_verdict", [5, 5, 5], [0, 4, 8]))).intent_score).toBe(0);
  });

  it("takes its criteria from the intent's goal and answers a window's question from its frames", () => {
    const c = JSON.parse(scriptedVisionReply(body("vision_criteria", [1], [0]))) as { criteria: string[] };
    expect(c.criteria).toHaveLength(3);
    expect(c.criteria[0]).toBe("The body achieves the goal: go far.");
    expect(JSON.parse(scriptedVisionReply(body("vision_answer", [1, 1, 2], [0, 0.5, 1]))).answer).toMatch(/changes between 1 of 2 consecutive frames/);
  });

  it("the scripted synthesiser asks both tools first, then sides with the code judge at the stated threshold", () => {
    const tools = [{ name: "reask_vision", description: "", parameters: {} }];
    const system = { role: "system" as const, content: '{"passed": <true exactly when score >= 0.9>}' };
    const user = {
      role: "user" as const,
      content: "Episode: task hopper, 500 steps of 0.008 s (4 s); forward is 1 0 0.\nCode judge: score 0.35. Its criteria:",
    };
    const first = scriptedSynthesiserTurn([system, user], tools);
    expect(
      first.toolCalls.map((c) => [c.name, c.name === "reask_vision" ? [(c.args as { from_s: number }).from_s, (c.args as { to_s: number }).to_s] : null]),
    ).toEqual([
      ["reask_vision", [3, 4]],
      ["run_trajectory_check", null],
    ]);
    const tool = { role: "tool" as const, content: "It stands still.", toolCallId: "x", name: "reask_vision" };
    const last = scriptedSynthesiserTurn([system, user, { role: "assistant", content: "", toolCalls: first.toolCalls }, tool], tools);
    expect(JSON.parse(last.text)).toMatchObject({ score: 0.35, passed: false, sided_with: "code", rotation: false });
    expect(JSON.parse(last.text).reason).toContain("reask_vision: It stands still.");
  });

  it("the page names the scripted vision model beside the code judges' author", () => {
    const d = data();
    d.visionModel = { kind: "scripted", name: "scripted-vision", note: "measures the plumbing, not a model's judgement" };
    expect(renderCalibrationPage(d, "J", "d.json")).toContain("- Frames judged by: scripted-vision (scripted): measures the plumbing, not a model's judgement");
  });
});
