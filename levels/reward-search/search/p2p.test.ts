import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { P2pConfig } from "../../../src/search/p2p-config.ts";
import { memoryP2pLog } from "../../../src/search/p2p-log.ts";
import { runP2p } from "../../../src/search/p2p.ts";
import { FITNESS_LABEL } from "../cli/judge-fitness.ts";
import { executeP2p } from "../cli/search-p2p.ts";
import { SearchSettings } from "../cli/search-settings.ts";
import { RewardSearchConfig } from "../config.ts";
import { HEURISTIC_REVISER_LABEL, heuristicReviser } from "../proposers/p2p-heuristic-reviser.ts";
import { getTask } from "../tasks/index.ts";
import type { JobResult } from "../trainer/client.ts";
import { summariseLosses } from "../trainer/loss-summary.ts";
import type { PoolJob, PoolOutcome, PoolTrainOptions } from "../trainer/pool.ts";
import { RunConfig } from "../../../src/loop/run-config.ts";
import { finalScoresOfRun, searchOfRun } from "./run-strategy.ts";
import { readJsonl } from "../../../src/store/jsonl.ts";
import { IterationRecord } from "../../../src/search/p2p-log.ts";
import type { TrainerPool } from "../trainer/pool.ts";
import { checkpointsOf, diagnosticsOf, p2pTrainer, ppoHpSpace } from "./p2p-trainer.ts";
import { fitnessCheckpointJudge } from "./p2p-fitness-judge.ts";

/** The offline p2p path: the heuristic reviser and the fitness judge on cartpole, over a stand-in pool whose F the test sets. */

const losses = { policyLoss: 0, valueLoss: 1, entropy: 0.5, approxKl: 0.05, clipFrac: 0.1, explainedVariance: 0.5 };

const stubPool = (fitness: (job: PoolJob) => number) => {
  const jobs: PoolJob[] = [];
  const options: PoolTrainOptions[] = [];
  return {
    jobs,
    options,
    train: async (job: PoolJob, opts: PoolTrainOptions = {}): Promise<PoolOutcome> => {
      jobs.push(job);
      options.push(opts);
      const f = fitness(job);
      const curve = Array.from({ length: 10 }, (_, i) => ({ step: (i + 1) * 100, fitness: (f * (i + 1)) / 10 }));
      const result: JobResult = {
        final: { fitness: f, perSeed: job.evalSeeds.map((seed) => ({ seed, fitness: f })) },
        bestCheckpoint: { fitness: f, step: 1000 },
        components: { upright: [{ step: 1000, mean: 0.5, min: 0, max: 1 }], alive: [{ step: 1000, mean: 1, min: 1, max: 1 }] },
        episodeLength: [{ step: 1000, mean: 20 }],
        fitnessCurve: curve,
        steps: 1000,
        wallMs: 1,
        policy: "policy.json",
      };
      return { kind: "result", result, losses: summariseLosses(Array.from({ length: 8 }, () => ({ losses }))), cached: false, jobDir: null };
    },
  };
};

const task = getTask("cartpole");

const offline = (fitness: (job: PoolJob) => number, budget: number, config: Partial<P2pConfig>) => {
  const pool = stubPool(fitness);
  const log = memoryP2pLog();
  const result = runP2p({
    task,
    instance: task.generate(1),
    seed: 1,
    source: task.id,
    reviser: heuristicReviser(),
    trainer: p2pTrainer(pool, 1000),
    judge: fitnessCheckpointJudge(),
    space: ppoHpSpace(task),
    log,
    budget,
    config: P2pConfig.parse(config),
  });
  return { result, pool, log };
};

describe("p2p on reward search, offline (heuristic reviser, fitness judge)", () => {
  it("takes the checkpoints nearest 25/50/75/100 % and the final policy's per-seed F", () => {
    const curve = Array.from({ length: 10 }, (_, i) => ({ step: (i + 1) * 100, fitness: i }));
    const cps = checkpointsOf({ fitnessCurve: curve, steps: 1000, final: { fitness: 9, perSeed: [{ seed: 1, fitness: 9 }] } });
    expect(cps.map((c) => c.step)).toEqual([200, 500, 700, 1000]);
    expect(cps.at(-1)).toEqual({ step: 1000, fraction: 1, fitness: 9, perSeed: [9] });
  });

  it("reads PPO diagnostics from the pool's loss summary (asking for one), none when the trainer reported no losses", async () => {
    const summary = summariseLosses([1, 1, 1, 0.03].map((approxKl) => ({ losses: { approxKl } })));
    expect(diagnosticsOf(summary)).toEqual({ approxKl: 0.03, clipFrac: null, entropy: null, explainedVariance: null });
    expect(diagnosticsOf(null)).toBeNull();
    const pool = stubPool(() => 10);
    const out = await p2pTrainer(pool, 1000).train({ task, instance: task.generate(1), code: "c", hp: {}, seed: 3, label: "l" });
    expect(pool.options[0]).toMatchObject({ needsLosses: true });
    expect(out.kind === "result" && out.diagnostics).toEqual({ approxKl: 0.05, clipFrac: 0.1, entropy: 0.5, explainedVariance: 0.5 });
  });

  it("trains N configurations per iteration with the task's PPO settings and the revised HPs; the KL rule halves the learning rate", async () => {
    const { result, pool } = offline(() => 100, 12, { configs: 3, trainSeeds: 2 });
    const r = await result;
    expect(pool.jobs).toHaveLength(12);
    const base = ppoHpSpace(task).base.learningRate!;
    // The revised configuration, then the variants "different" (GAE λ × 0.9) and "conservative" (learning rate halved).
    const hps = pool.jobs.slice(0, 6).map((j) => [j.ppo?.learningRate, j.ppo?.gaeLambda, j.ppo?.numEnvs]);
    const lambda = ppoHpSpace(task).base.gaeLambda!;
    const envs = task.training.ppo.numEnvs;
    expect(hps).toEqual([
      [base, lambda, envs],
      [base, lambda, envs],
      [base, Number((lambda * 0.9).toPrecision(3)), envs],
      [base, Number((lambda * 0.9).toPrecision(3)), envs],
      [base / 2, lambda, envs],
      [base / 2, lambda, envs],
    ]);
    expect(r.plans[1]!.revision.hpChanges).toEqual({ learningRate: [base, Number((base / 2).toPrecision(3))] });
    expect(r.stop).toBe("budget");
    expect(r.iterations[0]!.configs[0]!.scores[0]).toBeCloseTo(100 / 475);
  });

  it("makes a structural change of the reward after the plateau", async () => {
    const { result } = offline(() => 50, 6, { configs: 1, trainSeeds: 1, plateau: 3 });
    const r = await result;
    expect(r.plans.map((p) => p.revision.plateau)).toEqual([false, false, false, false, true, true]);
    for (const p of r.plans.slice(4)) {
      expect(p.revision.structural).toBe(true);
      expect(p.revision.rewardChanges[0]).toMatch(/^structural: .*(add|drop)/);
    }
  });

  it("stops when F reaches the task's solved threshold (score 1 under the fitness judge)", async () => {
    const { result, pool } = offline((job) => (job.reward.includes("heuristic design") && pool.jobs.length > 2 ? 480 : 100), 40, { configs: 1, trainSeeds: 2 });
    const r = await result;
    expect(r.passAt).toBe(1);
    expect(r.stop).toBe("passed");
    expect(r.best?.score).toBe(1);
  });

  it("hexa search --strategy p2p writes its lineage and says which judge scored it", async () => {
    const out = mkdtempSync(join(tmpdir(), "hexa-p2p-cli-"));
    const s = SearchSettings.parse({
      method: "p2p",
      task: "cartpole",
      seed: 0,
      search: { budget: 4, p2p: { configs: 2, trainSeeds: 1 } },
      options: {},
      trainSteps: 1000,
      finalTrainings: 1,
      finalSteps: 1000,
      rewardSearch: RewardSearchConfig.parse({}),
      proposer: "heuristic",
    });
    let text = "";
    await executeP2p(s, { out, reviser: heuristicReviser(), pool: stubPool(() => 10), stdout: (t) => void (text += t), stderr: (t) => void (text += t) });
    for (const f of ["search.json", "plans.jsonl", "iterations.jsonl", "trainings/it1-c1-s0.json", "final-scores.json"])
      expect(existsSync(join(out, f)), f).toBe(true);
    expect(text).toContain(FITNESS_LABEL);
    expect(text).toContain(HEURISTIC_REVISER_LABEL);
  });

  it("hexa run with method p2p: the exact budget at the run's quick budget, the lineage under search/<task>, the forecast per iteration", async () => {
    const config = RunConfig.parse({
      family: "reward-search",
      levels: ["cartpole"],
      method: "p2p",
      agent: "heuristic",
      search: { budget: 8, p2p: { configs: 2, trainSeeds: 2 } },
      seeds: { offset: 2 },
    });
    const pool = stubPool(() => 10);
    const dir = mkdtempSync(join(tmpdir(), "hexa-p2p-run-"));
    const search = searchOfRun(config, RewardSearchConfig.parse({ trainSteps: 24 }), pool as unknown as TrainerPool)!;
    expect(search.name).toBe("p2p");
    await search.run({ dir, log: () => {} });
    expect(pool.jobs.map((j) => j.steps)).toEqual(Array(8).fill(24));
    expect(existsSync(join(dir, "search", "cartpole", "iterations.jsonl"))).toBe(true);
    const withModel = searchOfRun({ ...config, agent: "hexa" }, RewardSearchConfig.parse({}), pool as unknown as TrainerPool)!;
    expect(withModel.calls(undefined)).toMatchObject({ candidates: 2, perCandidate: { calls: 2 } });
    expect(withModel.calls(dir).candidates).toBe(0);
  });

  it("the final score of a p2p run trains the best iteration's code with its HPs; the sparse and human rewards keep the task's", async () => {
    const config = RunConfig.parse({
      family: "reward-search",
      levels: ["cartpole"],
      method: "p2p",
      agent: "heuristic",
      search: { budget: 4, p2p: { configs: 2, trainSeeds: 1 } },
    });
    const base = ppoHpSpace(task).base.learningRate!;
    // The variant with a lower learning rate wins, so the best HPs are not the task's.
    const pool = stubPool((job) => (Number(job.ppo?.learningRate) < base ? 300 : 10));
    const dir = mkdtempSync(join(tmpdir(), "hexa-p2p-final-"));
    const c = RewardSearchConfig.parse({ trainSteps: 24, finishSteps: 24, finalTrainings: 2 });
    await searchOfRun(config, c, pool as unknown as TrainerPool)!.run({ dir, log: () => {} });
    const iterations = readJsonl(join(dir, "search", "cartpole", "iterations.jsonl"), IterationRecord);
    const best = iterations.reduce((b, r) => (r.score > b.score ? r : b));
    const hp = best.configs.find((x) => x.config === best.best)!.hp;
    expect(hp.learningRate).toBeLessThan(base);
    const searched = pool.jobs.length;
    const [score] = (await finalScoresOfRun({ config, dir, phases: new Map(), episodes: [] }, c, pool as unknown as TrainerPool, () => () => false))!;
    const final = pool.jobs.slice(searched);
    const code = (j: PoolJob) => (j.reward === task.sparseReward ? "sparse" : j.reward === task.humanReward ? "human" : "final");
    expect(final.filter((j) => code(j) === "final")).toHaveLength(2);
    for (const j of final) expect(j.ppo).toEqual(code(j) === "final" ? { ...task.training.ppo, ...hp } : task.training.ppo);
    expect(score!.figures.fitness!.mean).toBe(300);
    expect(score!.detail).toMatchObject({ hp, source: `iteration ${best.iteration} (config ${best.best}, with its HPs) of p2p` });
    expect(score!.measure).toContain("the final reward trained with the PPO settings its search found (learningRate ");
  });
});
