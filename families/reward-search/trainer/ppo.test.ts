import { describe, expect, it } from "vitest";
import cartpole from "../tasks/cartpole.ts";
import { defineTask, type RewardTask } from "../task.ts";
import { makeVecEnv } from "../envs/vec-env.ts";
import { hostRewardProgram, plainRewardProgram } from "./host-reward.ts";
import { forward, initParams, loadPolicy, policyLayout, RunningNorm, sampleActions, valueOf, type PolicyShape } from "./policy.ts";
import {
  autodiffGradient, checkpointIterations, evaluateChunked, evaluateGreedy, gae, lrAt, manualGradient, normalizeAdvantages, policyTerms, ppoObjective, trainPpo,
  type TrainRequest,
} from "./ppo.ts";
import { xoshiro128ss } from "../../../src/util/rng.ts";
import { initTf, tf } from "./tf.ts";

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

  it("picks checkpoint iterations evenly, always including the last", () => {
    expect([...checkpointIterations(100, 10)]).toEqual([9, 19, 29, 39, 49, 59, 69, 79, 89, 99]);
    expect([...checkpointIterations(3, 10)]).toEqual([0, 1, 2]);
    expect([...checkpointIterations(1, 10)]).toEqual([0]);
  });

  it("evaluates a rollout in chunks with the same result as one call", () => {
    const task = { observation: ["a", "b"], actionNames: ["u"], info: ["z"] };
    const calls: number[] = [];
    const inner = plainRewardProgram((r) => ({ total: r.obs.a! * 10 + r.nextObs.b! + (r.action as number) + r.info.z!, components: { a: r.obs.a! } }), task, true);
    const prog = { evaluate: (b: Parameters<typeof inner.evaluate>[0]) => (calls.push(b.n), inner.evaluate(b)), dispose() {} };
    const n = 7;
    const b = {
      n, obs: Float64Array.from({ length: 2 * n }, (_, i) => i), action: Float64Array.from({ length: n }, (_, i) => i % 2),
      nextObs: Float64Array.from({ length: 2 * n }, (_, i) => -i), info: { z: Float64Array.from({ length: n }, (_, i) => 100 * i) },
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

describe("PPO loss and gradient", () => {
  it("evaluates the clipped objective on known numbers", async () => {
    await initTf();
    const t = tf.tidy(() => {
      const x = {
        newLogp: tf.tensor1d([Math.log(1.5), Math.log(0.5)]), oldLogp: tf.tensor1d([0, 0]), adv: tf.tensor1d([1, -1]),
        newValue: tf.tensor1d([1, 0]), oldValue: tf.tensor1d([0, 0]), returns: tf.tensor1d([2, 1]), entropy: tf.scalar(0.7),
      };
      const c = { clipCoef: 0.2, entCoef: 0.01, vfCoef: 0.5 };
      // pg = mean(max(−1.5, −1.2), max(0.5, 0.8)) = −0.2; clipped v = ½·mean((0.2 − 2)², 1) = 1.06; unclipped = ½·mean(1, 1) = 0.5.
      const a = ppoObjective(x, { ...c, clipValueLoss: true });
      const b = ppoObjective(x, { ...c, clipValueLoss: false });
      return [a.pg, a.v, a.loss, b.v, b.loss].map((s) => s.dataSync()[0]!);
    });
    close(t, [-0.2, 1.06, -0.2 - 0.007 + 0.53, 0.5, -0.2 - 0.007 + 0.25], 5);
  });

  const shapes: Array<[string, PolicyShape]> = [
    ["discrete, separate", { obsDim: 5, action: { kind: "discrete", n: 3 }, hidden: 16, shared: false }],
    ["discrete, shared", { obsDim: 5, action: { kind: "discrete", n: 2 }, hidden: 16, shared: true }],
    ["continuous, separate", { obsDim: 5, action: { kind: "continuous", dim: 2, low: [-1, -1], high: [1, 1] }, hidden: 16, shared: false }],
    ["continuous, shared", { obsDim: 5, action: { kind: "continuous", dim: 2, low: [-1, -1], high: [1, 1] }, hidden: 16, shared: true }],
  ];
  it.each(shapes)("the JS rollout network and sampler agree with the tf one (%s)", async (_name, shape) => {
    await initTf();
    const rng = xoshiro128ss(5);
    const l = policyLayout(shape);
    const B = 16, k = l.outDim, aDim = shape.action.kind === "discrete" ? 1 : k;
    const theta = initParams(l, rng).map((v) => v + 0.3 * rng.normal());
    const obs = Float64Array.from({ length: B * 5 }, () => rng.normal());
    const out = forward(l, theta, obs, B, true);
    const acts = new Float64Array(B * aDim), logp = new Float64Array(B);
    sampleActions(l, theta, out.head, B, rng, acts, logp);
    const tfActs = new Float32Array(B * k);
    for (let r = 0; r < B; r++) {
      if (shape.action.kind === "discrete") tfActs[r * k + acts[r]!] = 1;
      else for (let j = 0; j < k; j++) tfActs[r * k + j] = acts[r * k + j]!;
    }
    const [tfLogp, tfValue] = tf.tidy(() => {
      const t = policyTerms(l, tf.tensor1d(theta), tf.tensor2d(Float32Array.from(obs), [B, 5]), tf.tensor2d(tfActs, [B, k]));
      return [t.newLogp.dataSync(), t.newValue.dataSync()];
    });
    close(tfLogp!, [...logp], 4);
    close(tfValue!, [...out.value!], 4);
    close(valueOf(l, theta, obs, B), [...out.value!], 12);
  });

  it.each(shapes)("hand-written gradient equals autodiff (%s)", async (_name, shape) => {
    await initTf();
    const rng = xoshiro128ss(3);
    const l = policyLayout(shape);
    const B = 32, k = l.outDim;
    const acts = new Float32Array(B * k);
    for (let r = 0; r < B; r++) {
      if (shape.action.kind === "discrete") acts[r * k + rng.int(k)] = 1;
      else for (let j = 0; j < k; j++) acts[r * k + j] = rng.normal();
    }
    const vec = (n: number, s: number, m = 0) => tf.tensor1d(Float32Array.from({ length: n }, () => m + s * rng.normal()));
    const theta = tf.variable(tf.tensor1d(initParams(l, rng).map((v) => v + 0.3 * rng.normal())));
    const x = {
      obs: tf.tensor2d(Float32Array.from({ length: B * 5 }, () => rng.normal()), [B, 5]), actions: tf.tensor2d(acts, [B, k]),
      oldLogp: vec(B, 0.5, -1), adv: vec(B, 1), returns: vec(B, 1), oldValue: vec(B, 0.3),
    };
    for (const clipValueLoss of [true, false]) {
      const c = { clipCoef: 0.2, entCoef: 0.05, vfCoef: 0.5, clipValueLoss };
      const [a, m] = tf.tidy(() => [autodiffGradient(l, theta, x, c).dataSync(), manualGradient(l, theta, x, c).dataSync()]);
      let maxDiff = 0, maxAbs = 0;
      for (let i = 0; i < a!.length; i++) { maxDiff = Math.max(maxDiff, Math.abs(a![i]! - m![i]!)); maxAbs = Math.max(maxAbs, Math.abs(a![i]!)); }
      expect(maxAbs).toBeGreaterThan(0.1);
      expect(maxDiff).toBeLessThan(1e-6);
    }
    tf.dispose([theta, ...Object.values(x)]);
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
    const progress: number[] = [];
    await initTf();
    const tensorsBefore = tf.memory().numTensors;
    const r = await trainPpo(cartpoleReq(3000, { onProgress: (p) => progress.push(p.steps) }));
    expect(tf.memory().numTensors).toBe(tensorsBefore);
    expect(r.steps).toBe(2560); // 5 iterations of 4 envs × 128 steps
    expect(progress).toEqual([512, 1024, 1536, 2048, 2560]);
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

  it("is deterministic for a seed and differs across seeds", async () => {
    const a = await trainPpo(cartpoleReq(2048));
    const b = await trainPpo(cartpoleReq(2048));
    const c = await trainPpo(cartpoleReq(2048, { seed: 99 }));
    expect(strip(b)).toEqual(strip(a));
    expect(c.policy.params).not.toBe(a.policy.params);
  });

  it("cancels between iterations with an AbortError", async () => {
    const ac = new AbortController();
    const seen: number[] = [];
    const run = trainPpo(cartpoleReq(20_000, { signal: ac.signal, onProgress: (p) => { seen.push(p.iteration); if (p.iteration === 1) ac.abort(); } }));
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
    id: "point", title: "point", description: "test", observation: ["x"], actionNames: ["push"], info: ["dist"],
    fitness: { describe: "steps near 0", range: [0, 50], solved: 40 },
    sparseReward: "", humanReward: null, training: { steps: 20_000, ppo: { numEnvs: 4, numSteps: 64, minibatchSize: 64, learningRate: 3e-3 } },
    maxEpisodeSteps: 50,
    generate: (seed) => ({ task: "point", seed, trainSeed: seed * 8, evalSeeds: [1, 2, 3], params: {} }),
    makeEnv: (_i, numEnvs) => {
      const s = new Float64Array(numEnvs);
      return makeVecEnv(numEnvs, {
        obsDim: 1, action: { kind: "continuous", dim: 1, low: [-1], high: [1] }, info: ["dist"], maxEpisodeSteps: 50,
        reset(i, rng, obs, off) { s[i] = rng.uniform(-1, 1) > 0 ? 1 : -1; obs[off] = s[i]!; },
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
