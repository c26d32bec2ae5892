import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, InvariantError } from "../errors.ts";
import { P2pConfig } from "./p2p-config.ts";
import { memoryP2pLog, p2pDirLog, type P2pLog } from "./p2p-log.ts";
import type { CheckpointJudge, HpSet, HpSpace, HpTrainer, Reviser, ReviseContext, Revision, TrainingOutcome } from "./p2p-ports.ts";
import { runP2p, trainSeedsOf, type P2pRun } from "./p2p.ts";
import { fakeInstance, fakeTask, type FakeInstance, type FakeTask } from "./test-fakes.ts";

/** The strategy on stand-in ports: F is the test's function of (code, HPs, seed), the judge scores F clamped to 0–1. */
type Score = (code: string, hp: HpSet, seed: number) => number;

const space: HpSpace = { bounds: { lr: [0.0001, 0.01], ent: [0, 0.1] }, base: { lr: 0.001, ent: 0.01 } };

const trainerOf = (score: Score, o: { failAt?: number } = {}) => {
  const calls: { code: string; hp: HpSet; seed: number }[] = [];
  const trainer: HpTrainer<FakeTask, FakeInstance> = {
    train: async ({ code, hp, seed }): Promise<TrainingOutcome> => {
      if (o.failAt !== undefined && calls.length === o.failAt) throw new Error("killed");
      calls.push({ code, hp, seed });
      const f = score(code, hp, seed);
      const checkpoints = [0.25, 0.5, 0.75, 1].map((fraction) => ({ step: fraction * 100, fraction, fitness: f * fraction }));
      return { kind: "result", steps: 100, checkpoints, diagnostics: null, terms: { a: 1 }, feedback: `F ${f}`, cached: false };
    },
  };
  return { trainer, calls };
};

const judge: CheckpointJudge<FakeTask> = {
  label: "F clamped",
  passAt: 0.9,
  judge: async (_t, cp) => ({ score: Math.min(1, Math.max(0, cp.fitness ?? 0)), detail: `F ${cp.fitness}` }),
};

/** A reviser that writes `code <iteration>` on the current iteration, or what `plan` says; variants scale lr. */
const scriptedReviser = (
  plan: (ctx: ReviseContext<FakeTask, FakeInstance>) => Partial<Revision> = () => ({}),
): Reviser<FakeTask, FakeInstance> & { seen: ReviseContext<FakeTask, FakeInstance>[] } => {
  const seen: ReviseContext<FakeTask, FakeInstance>[] = [];
  return {
    seen,
    label: "scripted",
    initial: async () => ({ code: "code 0", thought: "first" }),
    revise: async (ctx) => {
      seen.push(ctx);
      return {
        diagnosis: "d",
        lesson: `lesson of iteration ${ctx.iteration - 1}`,
        basedOn: ctx.current.iteration,
        rewardChanges: ["one change"],
        structural: ctx.plateau,
        noChange: false,
        code: `code ${ctx.iteration}`,
        hpChanges: {},
        ...plan(ctx),
      };
    },
    variants: async (ctx, directives) =>
      directives.map((_, j) => ({ lr: [ctx.hp.lr!, Math.min(0.01, Number((ctx.hp.lr! * (j + 2)).toPrecision(3)))] as const })),
  };
};

const runWith = (o: {
  score: Score;
  budget: number;
  config?: Partial<P2pConfig>;
  reviser?: Reviser<FakeTask, FakeInstance>;
  log?: P2pLog;
  failAt?: number;
  onCorrected?: P2pRun<FakeTask, FakeInstance>["onCorrected"];
  judge?: CheckpointJudge<FakeTask>;
}) => {
  const t = trainerOf(o.score, o.failAt === undefined ? {} : { failAt: o.failAt });
  const run: P2pRun<FakeTask, FakeInstance> = {
    task: fakeTask,
    instance: fakeInstance,
    seed: 3,
    source: "toy",
    reviser: o.reviser ?? scriptedReviser(),
    trainer: t.trainer,
    judge: o.judge ?? judge,
    space,
    log: o.log ?? memoryP2pLog(),
    budget: o.budget,
    config: P2pConfig.parse(o.config ?? {}),
    ...(o.onCorrected ? { onCorrected: o.onCorrected } : {}),
  };
  return { result: runP2p(run), calls: t.calls, run };
};

const low: Score = () => 0.1;

describe("p2p strategy", () => {
  it("trains exactly the budget: N configurations × seeds per iteration, the last iteration smaller", async () => {
    const { result, calls } = runWith({ score: low, budget: 10, config: { configs: 3, trainSeeds: 2 } });
    const r = await result;
    expect(calls).toHaveLength(10);
    expect(r.plans.map((p) => p.configs.length)).toEqual([3, 2]);
    expect(r.stop).toBe("budget");
    expect(r.trainings).toBe(10);
    // Every configuration of an iteration trains the iteration's one reward on the same seeds.
    const seeds = trainSeedsOf(fakeInstance, 2);
    expect(calls.slice(0, 6).map((c) => [c.code, c.seed])).toEqual([0, 1, 2].flatMap(() => seeds.map((s) => ["code 0", s])));
    expect(seeds.some((s) => fakeInstance.evalSeeds.includes(s))).toBe(false);
  });

  it("refuses a budget that does not buy whole configurations, naming search.budget", async () => {
    await expect(runWith({ score: low, budget: 7, config: { trainSeeds: 2 } }).result).rejects.toThrow(ConfigError);
    await expect(runWith({ score: low, budget: 7, config: { trainSeeds: 2 } }).result).rejects.toThrow(/search\.budget: 7/);
  });

  it("ranks configurations by their mean over seeds, not by their best seed", async () => {
    const [s0] = trainSeedsOf(fakeInstance, 2);
    // The base config has the best seed (0.8) but mean 0.45; the first variant (lr × 2) is 0.6 on both.
    const score: Score = (_c, hp, seed) => (hp.lr === 0.001 ? (seed === s0 ? 0.8 : 0.1) : hp.lr === 0.002 ? 0.6 : 0);
    const r = await runWith({ score, budget: 6, config: { configs: 3, trainSeeds: 2 } }).result;
    const it0 = r.iterations[0]!;
    expect(it0.configs.map((c) => c.scores)).toEqual([
      [0.8, 0.1],
      [0.6, 0.6],
      [0, 0],
    ]);
    expect(it0.best).toBe(1);
    expect(it0.score).toBeCloseTo(0.6);
    expect(r.best?.hp).toEqual({ lr: 0.002, ent: 0.01 });
  });

  it("scores an iteration by the last checkpoint and stops at the pass threshold", async () => {
    const score: Score = (code) => (code === "code 1" ? 0.95 : 0.5);
    const { result, calls } = runWith({ score, budget: 40, config: { configs: 2, trainSeeds: 1 } });
    const r = await result;
    expect(r.iterations.map((i) => i.score)).toEqual([0.5, 0.95]);
    expect(r.stop).toBe("passed");
    expect(calls).toHaveLength(4);
  });

  it("branches from an earlier iteration with that iteration's code and hyper-parameters", async () => {
    const reviser = scriptedReviser((ctx) =>
      ctx.iteration === 1 ? { hpChanges: { lr: [0.002, 0.005] } } : ctx.iteration === 2 ? { basedOn: 0, noChange: true, rewardChanges: [], code: "" } : {},
    );
    // Iteration 0's best is its first variant (lr 0.002); iteration 1 moves lr to 0.005 and scores worse.
    const score: Score = (code, hp) => (code === "code 0" ? (hp.lr === 0.002 ? 0.5 : 0.3) : 0.1);
    const r = await runWith({ score, budget: 6, config: { configs: 2, trainSeeds: 1 }, reviser }).result;
    expect(r.plans[1]!.configs[0]!.hp).toEqual({ lr: 0.005, ent: 0.01 });
    const branch = r.plans[2]!;
    expect(branch.parent).toBe(0);
    expect(branch.code).toBe("code 0");
    expect(branch.configs[0]!.hp).toEqual({ lr: 0.002, ent: 0.01 });
  });

  it("requires a structural rewrite after the plateau and refuses a reviser that does not make one", async () => {
    const obeys = scriptedReviser();
    const r = await runWith({ score: low, budget: 6, config: { configs: 1, trainSeeds: 1, plateau: 3 }, reviser: obeys }).result;
    expect(obeys.seen.map((c) => c.plateau)).toEqual([false, false, false, true, true]);
    expect(r.plans.map((p) => p.revision.structural)).toEqual([false, false, false, false, true, true]);
    expect(obeys.seen[3]!.guardrails.join(" ")).toMatch(/no new best for 3 iterations/);
    const stubborn = scriptedReviser(() => ({ structural: false }));
    await expect(runWith({ score: low, budget: 6, config: { configs: 1, trainSeeds: 1 }, reviser: stubborn }).result).rejects.toThrow(/structural/);
  });

  it("refuses HP changes outside the bounds or of an unknown field, naming it", async () => {
    const out = scriptedReviser(() => ({ hpChanges: { lr: [0.001, 0.5] } }));
    await expect(runWith({ score: low, budget: 4, config: { configs: 1, trainSeeds: 1 }, reviser: out }).result).rejects.toThrow(
      /hpChanges\.lr: 0\.5 is outside its bounds/,
    );
    const unknown = scriptedReviser(() => ({ hpChanges: { gamma: [0.99, 0.9] } }));
    await expect(runWith({ score: low, budget: 4, config: { configs: 1, trainSeeds: 1 }, reviser: unknown }).result).rejects.toThrow(InvariantError);
  });

  it("puts each iteration's lesson into the bank as STRONG and shows it to the next revision", async () => {
    const reviser = scriptedReviser();
    const log = memoryP2pLog();
    await runWith({ score: low, budget: 3, config: { configs: 1, trainSeeds: 1 }, reviser, log }).result;
    const added = log.bankEvents().filter((e) => e.type === "lesson_added");
    expect(added.map((e) => (e.type === "lesson_added" ? [e.entry.tier, e.entry.text] : []))).toEqual([
      ["STRONG", "lesson of iteration 0"],
      ["STRONG", "lesson of iteration 1"],
    ]);
    expect(reviser.seen[1]!.lessons.map((l) => l.text)).toEqual(["lesson of iteration 0"]);
  });

  it("applies the reviser's tier changes as lesson_tier_changed bank events with its reason, once on a resume", async () => {
    // Iteration 2's revision retires iteration 1's lesson (l1_1); it is planned, then the search is killed and resumed.
    const reviser = () =>
      scriptedReviser((ctx) =>
        ctx.iteration === 2 ? { tierChanges: [{ id: "l1_1", from: "STRONG", to: "RETIRED", reason: "iteration 1 scored no better with it" }] } : {},
      );
    const dir = mkdtempSync(join(tmpdir(), "hexa-p2p-"));
    const cfg = { configs: 1, trainSeeds: 1 };
    await expect(runWith({ score: low, budget: 4, config: cfg, reviser: reviser(), log: p2pDirLog(dir), failAt: 2 }).result).rejects.toThrow("killed");
    const resumed = reviser();
    const r = await runWith({ score: low, budget: 4, config: cfg, reviser: resumed, log: p2pDirLog(dir) }).result;
    expect(r.plans[2]!.revision.tierChanges).toEqual([{ id: "l1_1", from: "STRONG", to: "RETIRED", reason: "iteration 1 scored no better with it" }]);
    const events = p2pDirLog(dir).bankEvents();
    const changed = events.filter((e) => e.type === "lesson_tier_changed");
    expect(changed).toEqual([
      {
        schemaVersion: 1,
        type: "lesson_tier_changed",
        round: 2,
        evidence: [],
        id: "l1_1",
        from: "STRONG",
        to: "RETIRED",
        reason: "iteration 1 scored no better with it",
        by: "p2p reviser",
      },
    ]);
    // The change comes before the plan's own lesson; the next revision sees the lesson retired with its history.
    expect(events.map((e) => e.type)).toEqual(["lesson_added", "lesson_tier_changed", "lesson_added", "lesson_added"]);
    const l1 = resumed.seen.at(-1)!.lineage.lessons.find((l) => l.id === "l1_1")!;
    expect([l1.tier, l1.history.map((h) => h.reason)]).toEqual(["RETIRED", ["iteration 1 scored no better with it"]]);
    // The prompt's lessons hold it too, retired, so the reviser is shown why (agents/lessons-block.ts).
    expect(resumed.seen.at(-1)!.lessons.find((l) => l.id === "l1_1")?.tier).toBe("RETIRED");
  });

  it("refuses a tier change that does not apply (a missing lesson, a from that is not its tier) before writing the plan", async () => {
    const bad = (change: { id: string; from: "STRONG" | "SOFT" }) =>
      scriptedReviser((ctx) => (ctx.iteration === 2 ? { tierChanges: [{ ...change, to: "RETIRED", reason: "r" }] } : {}));
    for (const [change, problem] of [
      [{ id: "l9_1", from: "STRONG" }, /plan 2's tierChanges\.0: lesson\.id: no such lesson \(got "l9_1"\)/],
      [{ id: "l1_1", from: "SOFT" }, /plan 2's tierChanges\.0\.from: SOFT, but lesson 'l1_1' is STRONG/],
    ] as const) {
      const log = memoryP2pLog();
      await expect(runWith({ score: low, budget: 4, config: { configs: 1, trainSeeds: 1 }, reviser: bad(change), log }).result).rejects.toThrow(problem);
      expect(log.plans()).toHaveLength(2);
      expect(log.bankEvents().some((e) => e.type === "lesson_tier_changed")).toBe(false);
    }
  });

  it("resumes after a kill mid-iteration to the files of an uninterrupted search", async () => {
    const score: Score = (code, hp, seed) => ((code.length + hp.lr! * 100 + seed) % 7) / 10;
    const cfg = { configs: 3, trainSeeds: 2 };
    const whole = mkdtempSync(join(tmpdir(), "hexa-p2p-"));
    await runWith({ score, budget: 18, config: cfg, log: p2pDirLog(whole) }).result;
    const cut = mkdtempSync(join(tmpdir(), "hexa-p2p-"));
    // Killed during iteration 1 (its 10th training), then resumed: nothing finished is trained again.
    await expect(runWith({ score, budget: 18, config: cfg, log: p2pDirLog(cut), failAt: 9 }).result).rejects.toThrow("killed");
    const resumed = runWith({ score, budget: 18, config: cfg, log: p2pDirLog(cut) });
    await resumed.result;
    expect(resumed.calls).toHaveLength(18 - 9);
    const files = (d: string) => [...readdirSync(d), ...readdirSync(join(d, "trainings")).map((f) => join("trainings", f))].sort();
    expect(files(cut)).toEqual(files(whole));
    for (const f of files(whole).filter((f) => f.includes("."))) expect(readFileSync(join(cut, f), "utf8"), f).toBe(readFileSync(join(whole, f), "utf8"));
  });
});

describe("p2p strategy: corrections from the user", () => {
  const passes: Score = () => 1;
  const correction = (index: number, iteration: number, text: string) => ({
    schemaVersion: 1 as const,
    index,
    iteration,
    afterIteration: iteration - 1,
    text,
    at: "2026-12-07T02:00:00.000Z",
  });
  const answering = () =>
    scriptedReviser((ctx) => ({ corrections: ctx.corrections.map((c) => ({ correction: c.index, how: `weighted landing for ${c.text}`, addressed: true })) }));

  it("lets a finished search plan one more iteration past its stop to address a correction, says so, and records how", async () => {
    const log = memoryP2pLog();
    const cfg = { configs: 1, trainSeeds: 1 };
    const first = await runWith({ score: passes, budget: 5, config: cfg, log }).result;
    expect([first.stop, first.iterations.length]).toEqual(["passed", 1]);
    // Run again with no correction: still finished, nothing trained.
    const again = runWith({ score: passes, budget: 5, config: cfg, log });
    expect([(await again.result).iterations.length, again.calls.length]).toEqual([1, 0]);
    log.addCorrection(correction(0, 1, "land softer"));
    const reviser = answering();
    const continued: unknown[] = [];
    const r = await runWith({ score: passes, budget: 5, config: cfg, log, reviser, onCorrected: (...a) => continued.push(a) }).result;
    expect(continued).toEqual([["passed", 1, [0]]]);
    expect(reviser.seen.map((c) => c.corrections.map((x) => x.text))).toEqual([["land softer"]]);
    expect(r.iterations).toHaveLength(2);
    expect(r.stop).toBe("passed");
    expect(r.plans[1]!.revision.corrections).toEqual([{ correction: 0, how: "weighted landing for land softer", addressed: true }]);
  });

  it("continues past the iteration cap for a correction, but never past the training budget", async () => {
    const cfg = { configs: 1, trainSeeds: 1, maxIterations: 2 };
    const log = memoryP2pLog();
    expect((await runWith({ score: low, budget: 3, config: cfg, log }).result).stop).toBe("iterations");
    log.addCorrection(correction(0, 2, "jump higher"));
    const r = await runWith({ score: low, budget: 3, config: cfg, log, reviser: answering() }).result;
    expect([r.stop, r.iterations.length]).toEqual(["iterations", 3]);
    log.addCorrection(correction(1, 3, "higher still"));
    const spent = runWith({ score: low, budget: 3, config: cfg, log, reviser: answering() });
    expect([(await spent.result).stop, spent.calls.length]).toEqual(["budget", 0]);
  });

  it("refuses a revision that does not say how it addresses an outstanding correction", async () => {
    const log = memoryP2pLog();
    await runWith({ score: passes, budget: 4, config: { configs: 1, trainSeeds: 1 }, log }).result;
    log.addCorrection(correction(0, 1, "land softer"));
    await expect(runWith({ score: passes, budget: 4, config: { configs: 1, trainSeeds: 1 }, log }).result).rejects.toThrow(
      /broke a rule at iteration 1: corrections: correction 0 not addressed/,
    );
  });
});

describe("p2p strategy: versions of the judge", () => {
  /** F clamped, said to be scored by judge version 2 from iteration `from` on, version 1 before. */
  const versioned = (from: number): CheckpointJudge<FakeTask> => ({
    ...judge,
    judge: async (t, cp, at) => ({ ...(await judge.judge(t, cp, at)), judgeVersion: at.iteration >= from ? 2 : 1 }),
  });
  const byCode =
    (scores: number[]): Score =>
    (code) =>
      scores[Number(code.split(" ")[1])]!;
  const cfg = { configs: 1, trainSeeds: 1 };

  it("compares an iteration only with the iterations scored by the same judge version", async () => {
    const reviser = scriptedReviser();
    const log = memoryP2pLog();
    const r = await runWith({ score: byCode([0.8, 0.3, 0.4, 0.5]), budget: 4, config: cfg, reviser, log, judge: versioned(2) }).result;
    expect(r.iterations.map((i) => [i.judgeVersion, i.newBest])).toEqual([
      [1, true],
      [1, false],
      [2, true],
      [2, true],
    ]);
    expect(log.training(2, 0, trainSeedsOf(fakeInstance, 1)[0]!)!.judged.map((j) => j.judgeVersion)).toEqual([2, 2, 2, 2]);
    expect(reviser.seen.map((c) => [c.best.iteration, c.sinceBest])).toEqual([
      [0, 0],
      [0, 1],
      [2, 0],
    ]);
    expect([r.best?.iteration, r.best?.judgeVersion, r.stop]).toEqual([3, 2, "budget"]);
  });

  it("does not pass on a score of an earlier version once a later one judges", async () => {
    const log = memoryP2pLog();
    const score = byCode([1, 0.5, 0.5]);
    expect((await runWith({ score, budget: 3, config: cfg, log, judge: versioned(1) }).result).stop).toBe("passed");
    log.addCorrection({ schemaVersion: 1, index: 0, iteration: 1, afterIteration: 0, text: "land softer", at: "2026-12-07T02:00:00.000Z" });
    const reviser = scriptedReviser((ctx) => ({ corrections: ctx.corrections.map((c) => ({ correction: c.index, how: "softer", addressed: true })) }));
    const r = await runWith({ score, budget: 3, config: cfg, log, reviser, judge: versioned(1) }).result;
    expect([r.stop, r.iterations.length, r.best?.iteration]).toEqual(["budget", 3, 1]);
  });

  it("keeps a judge with one version's records free of versions", async () => {
    const r = await runWith({ score: byCode([0.8, 0.3]), budget: 2, config: cfg }).result;
    expect(r.iterations.map((i) => "judgeVersion" in i)).toEqual([false, false]);
    expect(r.best && "judgeVersion" in r.best).toBe(false);
  });
});
