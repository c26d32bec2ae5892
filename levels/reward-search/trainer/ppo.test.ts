import { describe, expect, it } from "vitest";
import cartpole from "../tasks/cartpole.ts";
import mountainCar from "../tasks/mountain_car_continuous.ts";
import { defineTask, type RewardTask } from "../task.ts";
import { makeVecEnv } from "../envs/vec-env.ts";
import { hostRewardProgram, plainRewardProgram } from "./host-reward.ts";
import { explainedVariance, gae, normalizeAdvantages } from "./advantages.ts";
import { checkpointIterations, evaluateGreedy } from "./evaluate.ts";
import { RunningNorm } from "./normalisers.ts";
import { loadPolicy } from "./policy.ts";
import { lrAt, trainPpo, type TrainProgress, type TrainRequest } from "./ppo.ts";
import { evaluateChunked } from "./reward-batches.ts";

const close = (got: ArrayLike<number>, want: number[], digits = 6) => {
  expect(got.length).toBe(want.length);
  want.forEach((w, i) => expect(got[i]).toBeCloseTo(w, digits));
};

describe("pure pieces", () => {
  it("anneals the learning rate linearly from lr to lr/numIterations (CleanRL)", () => {
    expect(lrAt(0, 4, 1e-3, true)).toBeCloseTo(1e-3, 12);
    expect(lrAt(1, 4, 1e-3, true)).toBeCloseTo(7.5e-4, 12);
    expect(lrAt(3, 4, 1e-3, true)).toBeCloseTo(2.5e-4, 12);
    expect(lrAt(3, 4, 1e-3, false)).toBe(1e-3);
  });

  it("computes GAE on hand-worked numbers (γ 0.9, λ 0.8)", () => {
    const base = { values: [0.5, 0.5, 0.5], nextValue: [0.5], numSteps: 3, numEnvs: 1, gamma: 0.9, lambda: 0.8 };
    // δ = 1 + 0.9·0.5 − 0.5 = 0.95 at every step; A2 = 0.95, A1 = 0.95 + 0.72·0.95, A0 = 0.95 + 0.72·A1.
    const open = gae({ ...base, rewards: [1, 1, 1], dones: [0, 0, 0] });
    close(open.advantages, [2.12648, 1.634, 0.95]);
    close(open.returns, [2.62648, 2.134, 1.45]);
    // Episode ends at t = 1: δ1 = 1 − 0.5 and no flow from t = 2 into t = 1.
    const cut = gae({ ...base, rewards: [1, 1, 1], dones: [0, 1, 0] });
    close(cut.advantages, [0.95 + 0.72 * 0.5, 0.5, 0.95]);
  });

  it("keeps envs apart in a T × N rollout (row t·N + e)", () => {
    const r = gae({ rewards: [1, 0, 1, 0], values: [0, 0, 0, 0], dones: [0, 0, 0, 0], nextValue: [0, 2], numSteps: 2, numEnvs: 2, gamma: 0.5, lambda: 1 });
    // env 0: rewards 1, 1 → A1 = 1, A0 = 1 + 0.5; env 1: rewards 0, 0, bootstrap 2 → A1 = 1, A0 = 0.5.
    close(r.advantages, [1.5, 0.5, 1, 1]);
  });

  it("normalises advantages with the unbiased std", () => {
    close(normalizeAdvantages([1, 2, 3]), [-1, 0, 1]);
    close(normalizeAdvantages([5, 5]), [0, 0]);
  });

  it("gives CleanRL's explained variance (population variances), null for constant returns", () => {
    // returns [1, 2, 3] (var 2/3), residuals [0, 1, 0] (var 2/9): 1 − (2/9)/(2/3) = 2/3.
    expect(explainedVariance([1, 1, 3], [1, 2, 3])).toBeCloseTo(2 / 3, 12);
    expect(explainedVariance([1, 2, 3], [1, 2, 3])).toBe(1);
    expect(explainedVariance([0, 1], [2, 2])).toBeNull();
  });

  it("picks checkpoint iterations evenly, always including the last", () => {
    expect([...checkpointIterations(100, 10)]).toEqual([9, 19, 29, 39, 49, 59, 69, 79, 89, 99]);
    expect([...checkpointIterations(3, 10)]).toEqual([0, 1, 2]);
    expect([...checkpointIterations(1, 10)]).toEqual([0]);
  });

  it("evaluates a rollout in chunks with the same result as one call", () => {
    const task = { observation: ["a", "b"], actionNames: ["u"], info: ["z"] };
    const calls: number[] = [];
    const inner = plainRewardProgram(
      (r) => ({ total: r.obs.a! * 10 + r.nextObs.b! + (r.action as number) + r.info.z!, components: { a: r.obs.a! } }),
      task,
      true,
    );
    const prog = { evaluate: (b: Parameters<typeof inner.evaluate>[0]) => (calls.push(b.n), inner.evaluate(b)), dispose() {} };
    const n = 7;
    const b = {
      n,
      obs: Float64Array.from({ length: 2 * n }, (_, i) => i),
      action: Float64Array.from({ length: n }, (_, i) => i % 2),
      nextObs: Float64Array.from({ length: 2 * n }, (_, i) => -i),
      info: { z: Float64Array.from({ length: n }, (_, i) => 100 * i) },
    };
    const whole = inner.evaluate(b);
    const chunked = evaluateChunked(prog, b, 2, 1, 3);
    expect(calls).toEqual([3, 3, 1]);
    expect([...chunked.total]).toEqual([...whole.total]);
    expect([...chunked.components.a!]).toEqual([...whole.components.a!]);
  });

  it("tracks running observation statistics", () => {
    const n = new RunningNorm(1);
    n.update(Float64Array.from([1, 3]), 2);
    n.update(Float64Array.from([5, 7]), 2);
    expect(n.mean[0]).toBeCloseTo(4, 3);
    expect(n.var[0]).toBeCloseTo(5, 3);
  });
});

const human = () => hostRewardProgram(cartpole.humanReward!, cartpole, true);
const cartpoleReq = (steps: number, extra: Partial<TrainRequest> = {}): TrainRequest => {
  const instance = cartpole.generate(0);
  return { task: cartpole, instance, reward: human(), steps, seed: instance.trainSeed, evalSeeds: instance.evalSeeds, ...extra };
};
const strip = ({ wallMs: _w, timing: _t, ...rest }: Awaited<ReturnType<typeof trainPpo>>) => rest;

describe("trainPpo", () => {
  it("returns every result field on a tiny budget, and the policy reloads to the same F", async () => {
    const progress: TrainProgress[] = [];
    const r = await trainPpo(cartpoleReq(3000, { onProgress: (p) => progress.push(p) }));
    expect(r.steps).toBe(2560); // 5 iterations of 4 envs × 128 steps
    expect(progress.map((p) => p.steps)).toEqual([512, 1024, 1536, 2048, 2560]);
    for (const { losses: l } of progress) {
      for (const v of Object.values(l)) expect(Number.isFinite(v)).toBe(true);
      expect(l.clipFrac).toBeGreaterThanOrEqual(0);
      expect(l.clipFrac).toBeLessThanOrEqual(1);
      expect(l.approxKl).toBeGreaterThanOrEqual(-1e-6); // (r − 1) − log r ≥ 0, up to float32 rounding
      expect(l.valueLoss).toBeGreaterThan(0);
      expect(l.entropy).toBeGreaterThan(0);
      expect(l.entropy).toBeLessThanOrEqual(Math.log(2) + 1e-6); // two actions
      expect(l.explainedVariance).toBeLessThanOrEqual(1);
    }
    expect(r.final.perSeed).toHaveLength(3);
    expect(r.final.fitness).toBeCloseTo(r.final.perSeed.reduce((a, b) => a + b) / 3, 9);
    expect(r.fitnessCurve).toHaveLength(5);
    expect(r.fitnessCurve.at(-1)).toEqual({ step: 2560, fitness: r.final.fitness });
    expect(r.bestCheckpoint.fitness).toBe(Math.max(...r.fitnessCurve.map((p) => p.fitness)));
    expect(Object.keys(r.components).sort()).toEqual(["alive", "angle", "centre"]);
    for (const series of Object.values(r.components)) {
      expect(series).toHaveLength(5);
      for (const s of series) expect(s.min).toBeLessThanOrEqual(s.mean), expect(s.mean).toBeLessThanOrEqual(s.max);
    }
    expect(r.episodeLength.length).toBeGreaterThan(0);
    expect(r.wallMs).toBeGreaterThan(0);
    expect(r.timing.updates).toBe(5 * 4 * 4);
    const json = JSON.parse(JSON.stringify(r.policy));
    const p = loadPolicy(json);
    const instance = cartpole.generate(0);
    expect(p.norm).toBeNull();
    expect(evaluateGreedy(cartpole, instance, p.layout, p.theta, p.norm, instance.evalSeeds)).toEqual(r.final.perSeed);
  });

  it("leaves a checkpoint window in which no training episode ended out of episodeLength (never a null mean)", async () => {
    // mountain_car_continuous's episodes last 999 steps: none of 2 envs ends within the first window of 256 steps.
    const instance = mountainCar.generate(0);
    const r = await trainPpo({
      task: mountainCar,
      instance,
      reward: hostRewardProgram(mountainCar.humanReward!, mountainCar, false),
      steps: 2048,
      seed: instance.trainSeed,
      evalSeeds: instance.evalSeeds,
      ppo: { numEnvs: 2, numSteps: 128, minibatchSize: 64, updateEpochs: 1 },
      options: { checkpoints: 8 },
    });
    expect(r.fitnessCurve).toHaveLength(8);
    expect(r.episodeLength.length).toBeLessThan(r.fitnessCurve.length);
    for (const p of r.episodeLength) expect(Number.isFinite(p.mean)).toBe(true);
    expect(JSON.parse(JSON.stringify(r.episodeLength))).toEqual(r.episodeLength);
  });

  it("is deterministic for a seed and differs across seeds", async () => {
    const a = await trainPpo(cartpoleReq(2048));
    const b = await trainPpo(cartpoleReq(2048));
    const c = await trainPpo(cartpoleReq(2048, { seed: 99 }));
    expect(strip(b)).toEqual(strip(a));
    expect(c.policy.params).not.toBe(a.policy.params);
    // A Gaussian policy with both normalisers: the same bytes of θ and statistics.
    const instance = mountainCar.generate(1);
    const continuous = () =>
      trainPpo({
        task: mountainCar,
        instance,
        reward: hostRewardProgram(mountainCar.humanReward!, mountainCar, false),
        steps: 1024,
        seed: 3,
        evalSeeds: [1],
        ppo: { numEnvs: 2, numSteps: 128, minibatchSize: 64, updateEpochs: 2 },
        options: { checkpoints: 1 },
      });
    const [d, e] = [await continuous(), await continuous()];
    expect(d.policy.obsNorm).not.toBeNull();
    expect(strip(e)).toEqual(strip(d));
  });

  it("cancels between iterations with an AbortError", async () => {
    const ac = new AbortController();
    const seen: number[] = [];
    const run = trainPpo(
      cartpoleReq(20_000, {
        signal: ac.signal,
        onProgress: (p) => {
          seen.push(p.iteration);
          if (p.iteration === 1) ac.abort();
        },
      }),
    );
    await expect(run).rejects.toMatchObject({ name: "AbortError" });
    expect(seen).toEqual([0, 1]);
    const pre = new AbortController();
    pre.abort();
    await expect(trainPpo(cartpoleReq(20_000, { signal: pre.signal }))).rejects.toMatchObject({ name: "AbortError" });
  });

  it("learns CartPole with its human reward (mechanism, not speed)", async () => {
    const trainF: Array<number | null> = [];
    const r = await trainPpo(cartpoleReq(24_576, { onProgress: (p) => trainF.push(p.fitness) }));
    // The untrained policy's episodes last ~20 steps; after 24k steps the greedy policy balances far longer.
    expect(trainF[0]).toBeLessThan(40);
    expect(r.final.fitness).toBeGreaterThan(150);
    expect(r.final.fitness).toBeGreaterThan(3 * trainF[0]!);
  });

  // A 1-D point that should move to the origin: obs [x], action a ∈ [−1, 1], x += 0.1·a; F = steps within 0.1 of 0.
  const point: RewardTask = defineTask({
    id: "point",
    title: "point",
    description: "test",
    observation: ["x"],
    actionNames: ["push"],
    info: ["dist"],
    fitness: { describe: "steps near 0", range: [0, 50], solved: 40 },
    sparseReward: "",
    humanReward: null,
    training: { steps: 20_000, ppo: { numEnvs: 4, numSteps: 64, minibatchSize: 64, learningRate: 3e-3 } },
    maxEpisodeSteps: 50,
    generate: (seed) => ({ task: "point", seed, trainSeed: seed * 8, evalSeeds: [1, 2, 3], params: {} }),
    makeEnv: (_i, numEnvs) => {
      const s = new Float64Array(numEnvs);
      return makeVecEnv(numEnvs, {
        obsDim: 1,
        action: { kind: "continuous", dim: 1, low: [-1], high: [1] },
        info: ["dist"],
        maxEpisodeSteps: 50,
        reset(i, rng, obs, off) {
          s[i] = rng.uniform(-1, 1) > 0 ? 1 : -1;
          obs[off] = s[i]!;
        },
        step(i, a, aOff, next, off, info, fitness) {
          s[i]! += 0.1 * a[aOff]!;
          next[off] = s[i]!;
          info.dist![i] = Math.abs(s[i]!);
          fitness[i] = Math.abs(s[i]!) < 0.1 ? 1 : 0;
          return false;
        },
      });
    },
  });

  it("trains a continuous (Gaussian) policy with obs and reward normalisation", async () => {
    const instance = point.generate(0);
    const reward = plainRewardProgram((row) => ({ total: -(row.info.dist ?? 0), components: { dist: -(row.info.dist ?? 0) } }), point, false);
    const r = await trainPpo({ task: point, instance, reward, steps: 16_384, seed: 0, evalSeeds: instance.evalSeeds });
    expect(r.policy.obsNorm).not.toBeNull();
    const p = loadPolicy(r.policy);
    expect(evaluateGreedy(point, instance, p.layout, p.theta, p.norm, instance.evalSeeds)).toEqual(r.final.perSeed);
    expect(r.fitnessCurve[0]!.fitness).toBeLessThan(20);
    expect(r.final.fitness).toBeGreaterThan(30);
  });
});
