import fc from "fast-check";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { RunConfig } from "../../../src/loop/run-config.ts";
import { memoryLog } from "../../../src/search/candidates.ts";
import { runEureka } from "../../../src/search/eureka.ts";
import { readFinalScores, writeFinalScores } from "../../../src/store/final-scores.ts";
import { RewardSearchConfig } from "../config.ts";
import { heuristicProposer } from "../proposers/heuristic-proposer.ts";
import { getTask } from "../tasks/index.ts";
import type { TrainerPool } from "../trainer/pool.ts";
import { trainerEvaluator } from "./evaluator.ts";
import { freshSeeds, scoreOnFreshSeeds, selectionOf } from "./final-protocol.ts";
import { finalScoresOfRun, searchOfRun } from "./run-strategy.ts";
import { scoreOf, testTrainer } from "./test-trainer.ts";

/** The test trainer with F depending on the training seed too (so the seeds' spread is not zero). */
const seededTrainer = () => {
  const t = testTrainer();
  const train: typeof t.train = async (job, opts) => {
    const o = await t.train(job, opts);
    if (o.kind !== "result") return o;
    const f = o.result.final.fitness + (job.seed % 13);
    return { ...o, result: { ...o.result, final: { fitness: f, perSeed: o.result.final.perSeed.map((p) => ({ ...p, fitness: f })) } } };
  };
  return { jobs: t.jobs, train };
};

const seedsOfJobs = (jobs: readonly { seed: number; evalSeeds: number[] }[]) => new Set(jobs.flatMap((j) => [j.seed, ...j.evalSeeds]));

describe("the final scoring protocol's fresh seeds", () => {
  it("are disjoint from every training and evaluation seed a search used", async () => {
    const task = getTask("cartpole");
    const instance = task.generate(3);
    const trainer = testTrainer();
    const log = memoryLog();
    await runEureka(
      { task, instance, seed: 3, proposer: heuristicProposer(), budget: 6, ports: { evaluator: trainerEvaluator(trainer, 64), log } },
      { samples: 3 },
    );
    const used = seedsOfJobs(trainer.jobs);
    expect(used.size).toBeGreaterThan(0);
    const fresh = freshSeeds(instance.seed, 3, selectionOf([instance, ...log.records]));
    expect(fresh).toHaveLength(3);
    const all = fresh.flatMap((s) => [s.trainSeed, ...s.evalSeeds]);
    for (const s of all) expect(used.has(s)).toBe(false);
    // Training seeds differ from each other and from every evaluation seed of the protocol.
    expect(new Set(all).size).toBe(all.length);
  });

  it("skip any fresh seed that meets a selection seed, still giving the count asked for", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 50 }), fc.integer({ min: 1, max: 8 }), fc.array(fc.integer({ min: 0, max: 39 })), (inst, count, picks) => {
        // Selection seeds placed exactly where the fresh ones would otherwise be.
        const natural = freshSeeds(inst, 40, { train: [], eval: [] });
        const train = picks.map((p) => natural[p]!.trainSeed);
        const evalSeeds = picks.map((p) => natural[p]!.evalSeeds[p % 3]!);
        const fresh = freshSeeds(inst, count, { train, eval: evalSeeds });
        expect(fresh).toHaveLength(count);
        const used = new Set([...train, ...evalSeeds]);
        for (const s of fresh) for (const x of [s.trainSeed, ...s.evalSeeds]) expect(used.has(x)).toBe(false);
      }),
    );
  });
});

describe("scoreOnFreshSeeds", () => {
  it("trains the final, sparse and human rewards on the same fresh seeds and keeps every seed's three F values", async () => {
    const task = getTask("pendulum");
    const instance = task.generate(0);
    const trainer = seededTrainer();
    const code = "function reward(o,a,n,i){return {total:1,components:{a:1}}}";
    const seeds = freshSeeds(0, 3, selectionOf([instance]));
    const r = await scoreOnFreshSeeds({ trainer, task, instance, code, steps: 32, seeds, label: "t" });
    expect(trainer.jobs).toHaveLength(9);
    for (const s of seeds) expect(trainer.jobs.filter((j) => j.seed === s.trainSeed).map((j) => j.evalSeeds)).toEqual([s.evalSeeds, s.evalSeeds, s.evalSeeds]);
    const F = (c: string, seed: number) => scoreOf(c) + (seed % 13);
    r.perSeed.forEach((p, i) => {
      const t = seeds[i]!.trainSeed;
      const [f, fs, fh] = [F(code, t), F(task.sparseReward, t), F(task.humanReward!, t)];
      expect(p).toMatchObject({ seed: t, fitness: f, sparse: fs, human: fh });
    });
    const fs = r.perSeed.map((p) => p.fitness!);
    expect(r.fitness).toMatchObject({ n: 3, mean: fs.reduce((a, b) => a + b, 0) / 3 });
    expect(r.fitness.ci95![0]).toBeLessThanOrEqual(r.fitness.mean!);
    expect(r.fitness.ci95![1]).toBeGreaterThanOrEqual(r.fitness.mean!);
    expect(r.vsSparse.n).toBe(3);
  });

  it("reports F the same way for a task without a human reward (no difference from it, no normalised score)", async () => {
    const task = getTask("half_cheetah_backward");
    const instance = task.generate(0);
    const trainer = seededTrainer();
    const r = await scoreOnFreshSeeds({
      trainer,
      task,
      instance,
      code: task.sparseReward,
      steps: 32,
      seeds: freshSeeds(0, 4, selectionOf([instance])),
      label: "t",
    });
    expect(trainer.jobs).toHaveLength(8);
    expect(r.normalised.mean).toBeNull();
    expect(r.vsHuman.mean).toBeNull();
    expect(r.fitness.n).toBe(4);
  });
});

describe("a run's final scores (tiny budget, test trainer)", () => {
  it("final-scores.json (schema 3) carries F, the paired differences, the normalised score and every seed, on seeds no search training used", async () => {
    const dir = mkdtempSync(join(tmpdir(), "hexa-final-protocol-"));
    const config = RunConfig.parse({ family: "reward-search", levels: ["pendulum"], method: "rf-agent", agent: "heuristic", search: { budget: 4 } });
    const c = RewardSearchConfig.parse({ trainSteps: 32, finishSteps: 32 });
    const trainer = seededTrainer();
    const pool = trainer as unknown as TrainerPool;
    await searchOfRun(config, c, pool)!.run({ dir, log: () => {} } as never);
    const searched = seedsOfJobs(trainer.jobs);
    expect(trainer.jobs).toHaveLength(4);
    const scores = await finalScoresOfRun({ config, dir, phases: new Map(), episodes: [] }, c, pool, () => () => false);
    writeFinalScores(dir, scores!);
    const [f] = readFinalScores(dir)!.levels;
    const scored = trainer.jobs.slice(4);
    expect(scored).toHaveLength(3 * 3);
    for (const s of seedsOfJobs(scored)) expect(searched.has(s)).toBe(false);
    expect(f!.headline).toBe("fitness");
    expect(Object.keys(f!.figures)).toEqual(["fitness", "vsSparse", "vsHuman", "normalised"]);
    expect(f!.figures.fitness).toMatchObject({ label: "F", n: 3 });
    expect(f!.figures.vsSparse!.n).toBe(3);
    expect(f!.perSeed).toHaveLength(3);
    // The bench's trainings are below pendulum's scored budget, and the score says so.
    expect(f!.detail).toMatchObject({ steps: 32, scoredSteps: getTask("pendulum").training.steps });
    expect(f!.measure).toContain("trained at 32 env steps, NOT the task's scored budget");
  });

  it("an old final-scores.json (schema 1, no spread) is still read, its score the headline", () => {
    const dir = mkdtempSync(join(tmpdir(), "hexa-final-old-"));
    const old = { schemaVersion: 1, levels: [{ level: "pendulum", score: 0.5, measure: "m", raw: { name: "F", value: -700 }, spent: 4, detail: {} }] };
    writeFileSync(join(dir, "final-scores.json"), JSON.stringify(old));
    expect(readFinalScores(dir)?.levels[0]).toMatchObject({
      headline: "score",
      figures: { score: { mean: 0.5, n: 1 }, raw: { label: "F", mean: -700 } },
      perSeed: [],
    });
  });
});
