import { describe, expect, it } from "vitest";
import { ActorCritic } from "./actor-critic.ts";
import { manualGradient, unflatten, type MinibatchTensors } from "./tfjs-gradient.ts";
import { initParams, policyLayout, sampleActions, type PolicyLayout, type PolicyShape } from "./policy.ts";
import { LOG_2PI, PpoGradient, type Minibatch, type ObjectiveConfig } from "./ppo-gradient.ts";
import { xoshiro128ss } from "../../../src/util/rng.ts";
import { initTf, tf } from "./tf.ts";

// ---- The reference: the network and the loss as CleanRL writes them, differentiated by tfjs autodiff. Test
// support only; these tests hold tfjs-gradient.ts's hand-written gradient (the trainer's former tfjs path) equal to
// it, and the trainer's kernels (ppo-gradient.ts) equal to both.

interface ObjectiveInput {
  newLogp: tf.Tensor1D;
  oldLogp: tf.Tensor1D;
  adv: tf.Tensor1D;
  newValue: tf.Tensor1D;
  oldValue: tf.Tensor1D;
  returns: tf.Tensor1D;
  /** Mean entropy of the minibatch (scalar). */
  entropy: tf.Scalar;
}

/** The PPO loss: clipped surrogate + vfCoef · (clipped) value loss − entCoef · entropy; also the three terms. */
const ppoObjective = (x: ObjectiveInput, c: ObjectiveConfig): { loss: tf.Scalar; pg: tf.Scalar; v: tf.Scalar; entropy: tf.Scalar } => {
  const ratio = tf.exp(tf.sub(x.newLogp, x.oldLogp));
  const negAdv = tf.neg(x.adv);
  const pg = tf.mean(tf.maximum(tf.mul(negAdv, ratio), tf.mul(negAdv, tf.clipByValue(ratio, 1 - c.clipCoef, 1 + c.clipCoef)))) as tf.Scalar;
  const unclipped = tf.squaredDifference(x.newValue, x.returns);
  const vTerm = c.clipValueLoss
    ? tf.maximum(unclipped, tf.squaredDifference(tf.add(x.oldValue, tf.clipByValue(tf.sub(x.newValue, x.oldValue), -c.clipCoef, c.clipCoef)), x.returns))
    : unclipped;
  const v = tf.mul(0.5, tf.mean(vTerm)) as tf.Scalar;
  const loss = tf.add(tf.sub(pg, tf.mul(c.entCoef, x.entropy)), tf.mul(c.vfCoef, v)) as tf.Scalar;
  return { loss, pg, v, entropy: x.entropy };
};

/**
 * The network in tf on flat θ, and each row's log-probability of its action plus the mean entropy. Discrete
 * actions come as a one-hot B × n matrix, continuous ones as B × dim values.
 */
const policyTerms = (
  l: PolicyLayout,
  theta: tf.Tensor1D,
  obs: tf.Tensor2D,
  actions: tf.Tensor2D,
): { newLogp: tf.Tensor1D; entropy: tf.Scalar; newValue: tf.Tensor1D } => {
  const P = unflatten(l, theta);
  const layer = (x: tf.Tensor2D, w: string, b: string, tanh: boolean): tf.Tensor2D => {
    const y = tf.fused.matMul({ a: x, b: P[w] as tf.Tensor2D, bias: P[b] }) as tf.Tensor2D;
    return tanh ? (tf.tanh(y) as tf.Tensor2D) : y;
  };
  const h2 = layer(layer(obs, "pi.w1", "pi.b1", true), "pi.w2", "pi.b2", true);
  const head = layer(h2, "pi.w3", "pi.b3", false);
  const v2 = l.shared ? h2 : layer(layer(obs, "v.w1", "v.b1", true), "v.w2", "v.b2", true);
  const newValue = tf.reshape(layer(v2, "v.w3", "v.b3", false), [-1]) as tf.Tensor1D;
  if (l.action.kind === "discrete") {
    const logp = tf.logSoftmax(head);
    return {
      newLogp: tf.sum(tf.mul(logp, actions), 1),
      entropy: tf.neg(tf.mean(tf.sum(tf.mul(tf.exp(logp), logp), 1))) as tf.Scalar,
      newValue,
    };
  }
  const logStd = P.logStd as tf.Tensor1D;
  const z = tf.mul(tf.sub(actions, head), tf.exp(tf.neg(logStd)));
  const sumLogStd = tf.sum(logStd);
  return {
    newLogp: tf.sub(tf.mul(-0.5, tf.sum(tf.square(z), 1)), tf.add(sumLogStd, 0.5 * l.outDim * LOG_2PI)) as tf.Tensor1D,
    entropy: tf.add(sumLogStd, l.outDim * 0.5 * (1 + LOG_2PI)) as tf.Scalar,
    newValue,
  };
};

/** ∂loss/∂θ by autodiff of policyTerms + ppoObjective. */
const autodiffGradient = (l: PolicyLayout, theta: tf.Variable<tf.Rank.R1>, x: MinibatchTensors, c: ObjectiveConfig): tf.Tensor1D => {
  const { grads } = tf.variableGrads(() => ppoObjective({ ...policyTerms(l, theta, x.obs, x.actions), ...x }, c).loss, [theta]);
  return grads[theta.name] as tf.Tensor1D;
};

const close = (got: ArrayLike<number>, want: number[], digits = 6) => {
  expect(got.length).toBe(want.length);
  want.forEach((w, i) => expect(got[i]).toBeCloseTo(w, digits));
};

describe("PPO loss and gradient", () => {
  it("evaluates the clipped objective on known numbers", async () => {
    await initTf();
    const t = tf.tidy(() => {
      const x = {
        newLogp: tf.tensor1d([Math.log(1.5), Math.log(0.5)]),
        oldLogp: tf.tensor1d([0, 0]),
        adv: tf.tensor1d([1, -1]),
        newValue: tf.tensor1d([1, 0]),
        oldValue: tf.tensor1d([0, 0]),
        returns: tf.tensor1d([2, 1]),
        entropy: tf.scalar(0.7),
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
  it.each(shapes)("the kernel network and the sampler agree with the tf one (%s)", async (_name, shape) => {
    await initTf();
    const rng = xoshiro128ss(5);
    const l = policyLayout(shape);
    const B = 16,
      k = l.outDim,
      aDim = shape.action.kind === "discrete" ? 1 : k;
    const theta = initParams(l, rng).map((v) => v + 0.3 * rng.normal());
    const obs = Float64Array.from({ length: B * 5 }, () => rng.normal());
    const net = new ActorCritic(l, B);
    net.load(theta);
    net.forward(obs, B, "both");
    const acts = new Float64Array(B * aDim),
      logp = new Float64Array(B);
    sampleActions(l, theta, net.head, B, rng, acts, logp);
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
    close(tfValue!, [...net.value], 4);
    const values = net.value.slice();
    net.forward(obs, B, "value");
    expect(net.value).toEqual(values);
  });

  it.each(shapes)("hand-written gradient equals autodiff (%s)", async (_name, shape) => {
    await initTf();
    const rng = xoshiro128ss(3);
    const l = policyLayout(shape);
    const B = 32,
      k = l.outDim;
    const acts = new Float32Array(B * k);
    for (let r = 0; r < B; r++) {
      if (shape.action.kind === "discrete") acts[r * k + rng.int(k)] = 1;
      else for (let j = 0; j < k; j++) acts[r * k + j] = rng.normal();
    }
    const vec = (n: number, s: number, m = 0) => tf.tensor1d(Float32Array.from({ length: n }, () => m + s * rng.normal()));
    const theta = tf.variable(tf.tensor1d(initParams(l, rng).map((v) => v + 0.3 * rng.normal())));
    const x = {
      obs: tf.tensor2d(
        Float32Array.from({ length: B * 5 }, () => rng.normal()),
        [B, 5],
      ),
      actions: tf.tensor2d(acts, [B, k]),
      oldLogp: vec(B, 0.5, -1),
      adv: vec(B, 1),
      returns: vec(B, 1),
      oldValue: vec(B, 0.3),
    };
    for (const clipValueLoss of [true, false]) {
      const c = { clipCoef: 0.2, entCoef: 0.05, vfCoef: 0.5, clipValueLoss };
      const [a, m] = tf.tidy(() => [autodiffGradient(l, theta, x, c).dataSync(), manualGradient(l, theta, x, c).grad.dataSync()]);
      let maxDiff = 0,
        maxAbs = 0;
      for (let i = 0; i < a!.length; i++) {
        maxDiff = Math.max(maxDiff, Math.abs(a![i]! - m![i]!));
        maxAbs = Math.max(maxAbs, Math.abs(a![i]!));
      }
      expect(maxAbs).toBeGreaterThan(0.1);
      expect(maxDiff).toBeLessThan(1e-6);
    }
    tf.dispose([theta, ...Object.values(x)]);
  });

  /** A random minibatch for a layout (rng-driven, as the gradient test's). */
  const minibatch = (shape: PolicyShape, seed: number) => {
    const rng = xoshiro128ss(seed);
    const l = policyLayout(shape);
    const B = 32,
      k = l.outDim;
    const acts = new Float32Array(B * k);
    for (let r = 0; r < B; r++) {
      if (shape.action.kind === "discrete") acts[r * k + rng.int(k)] = 1;
      else for (let j = 0; j < k; j++) acts[r * k + j] = rng.normal();
    }
    const vec = (n: number, s: number, m = 0) => tf.tensor1d(Float32Array.from({ length: n }, () => m + s * rng.normal()));
    const theta = tf.variable(tf.tensor1d(initParams(l, rng).map((v) => v + 0.3 * rng.normal())));
    const x: MinibatchTensors = {
      obs: tf.tensor2d(
        Float32Array.from({ length: B * 5 }, () => rng.normal()),
        [B, 5],
      ),
      actions: tf.tensor2d(acts, [B, k]),
      oldLogp: vec(B, 0.5, -1),
      adv: vec(B, 1),
      returns: vec(B, 1),
      oldValue: vec(B, 0.3),
    };
    return { l, theta, x, dispose: () => tf.dispose([theta, ...Object.values(x)]) };
  };

  it.each(shapes)("the loss diagnostics equal the reference loss's terms, and asking for them leaves the gradient bit for bit (%s)", async (_name, shape) => {
    await initTf();
    const { l, theta, x, dispose } = minibatch(shape, 11);
    for (const clipValueLoss of [true, false]) {
      const c = { clipCoef: 0.2, entCoef: 0.05, vfCoef: 0.5, clipValueLoss };
      type Read = { grad: number[]; clipFrac: number; pg?: number; v?: number; entropy?: number; kl?: number };
      const kept: { got?: [Read, Read, { pg: number; v: number; entropy: number }, number, number] } = {};
      tf.tidy(() => {
        const a = manualGradient(l, theta, x, c);
        const b = manualGradient(l, theta, x, c, true);
        const terms = policyTerms(l, theta, x.obs, x.actions);
        const o = ppoObjective({ ...terms, ...x }, c);
        const logRatio = tf.sub(terms.newLogp, x.oldLogp);
        const ratio = tf.exp(logRatio);
        const kl = tf.mean(tf.sub(tf.sub(ratio, 1), logRatio));
        const clipped = tf.mean(tf.cast(tf.greater(tf.abs(tf.sub(ratio, 1)), c.clipCoef), "float32"));
        expect(a.losses).toBeNull();
        const lb = b.losses!;
        kept.got = [
          { grad: [...a.grad.dataSync()], clipFrac: a.clipFrac.dataSync()[0]! },
          {
            grad: [...b.grad.dataSync()],
            clipFrac: b.clipFrac.dataSync()[0]!,
            pg: lb.policyLoss.dataSync()[0]!,
            v: lb.valueLoss.dataSync()[0]!,
            entropy: lb.entropy.dataSync()[0]!,
            kl: lb.approxKl.dataSync()[0]!,
          },
          { pg: o.pg.dataSync()[0]!, v: o.v.dataSync()[0]!, entropy: o.entropy.dataSync()[0]! },
          kl.dataSync()[0]!,
          clipped.dataSync()[0]!,
        ];
      });
      const [plain, diag, ref, refKl, refClip] = kept.got!;
      expect(diag.grad).toEqual(plain.grad);
      expect(diag.clipFrac).toBe(plain.clipFrac);
      expect(diag.pg).toBeCloseTo(ref.pg, 5);
      expect(diag.v).toBeCloseTo(ref.v, 5);
      expect(diag.entropy).toBeCloseTo(ref.entropy, 5);
      expect(diag.kl).toBeCloseTo(refKl, 5);
      expect(diag.clipFrac).toBe(refClip);
      expect(refClip).toBeGreaterThan(0); // θ is perturbed: some ratios leave [0.8, 1.2]
    }
    dispose();
  });
});

describe("the trainer's kernels against the tfjs path", () => {
  const shapes: Array<[string, PolicyShape]> = [
    ["discrete, separate", { obsDim: 5, action: { kind: "discrete", n: 3 }, hidden: 16, shared: false }],
    ["discrete, shared", { obsDim: 5, action: { kind: "discrete", n: 2 }, hidden: 16, shared: true }],
    ["continuous, separate", { obsDim: 5, action: { kind: "continuous", dim: 2, low: [-1, -1], high: [1, 1] }, hidden: 16, shared: false }],
    ["continuous, shared", { obsDim: 5, action: { kind: "continuous", dim: 2, low: [-1, -1], high: [1, 1] }, hidden: 16, shared: true }],
    ["hopper-sized", { obsDim: 11, action: { kind: "continuous", dim: 3, low: [-1, -1, -1], high: [1, 1, 1] }, hidden: 64, shared: false }],
  ];
  it.each(shapes)("gives the tfjs path's gradient and losses on the same θ and minibatch, to float32 precision (%s)", async (_name, shape) => {
    await initTf();
    const rng = xoshiro128ss(17);
    const l = policyLayout(shape);
    const B = 64,
      k = l.outDim,
      d = shape.obsDim,
      discrete = shape.action.kind === "discrete";
    const f32 = (n: number, s: number, m = 0) => Float32Array.from({ length: n }, () => m + s * rng.normal());
    const theta = initParams(l, rng).map((v) => v + 0.3 * rng.normal());
    const obs = f32(B * d, 1);
    const actions = discrete ? Float32Array.from({ length: B }, () => rng.int(k)) : f32(B * k, 1);
    const oneHot = new Float32Array(B * k);
    if (discrete) for (let r = 0; r < B; r++) oneHot[r * k + actions[r]!] = 1;
    const [oldLogp, adv, returns, oldValue] = [f32(B, 0.5, -1), f32(B, 1), f32(B, 1), f32(B, 0.3)];
    const mb: Minibatch = {
      size: B,
      ...Object.fromEntries(Object.entries({ obs, actions, oldLogp, adv, returns, oldValue }).map(([n, v]) => [n, Float64Array.from(v)])),
    } as Minibatch;
    for (const clipValueLoss of [true, false]) {
      const c = { clipCoef: 0.2, entCoef: 0.05, vfCoef: 0.5, clipValueLoss };
      const kernel = new PpoGradient(l, B, c);
      const losses = { ...kernel.compute(theta, mb) };
      const ref = tf.tidy(() => {
        const x: MinibatchTensors = {
          obs: tf.tensor2d(obs, [B, d]),
          actions: tf.tensor2d(discrete ? oneHot : actions, [B, k]),
          oldLogp: tf.tensor1d(oldLogp),
          adv: tf.tensor1d(adv),
          returns: tf.tensor1d(returns),
          oldValue: tf.tensor1d(oldValue),
        };
        const g = manualGradient(l, tf.tensor1d(theta), x, c, true);
        const read = (t: tf.Tensor) => t.dataSync()[0]!;
        const o = g.losses!;
        return {
          grad: Float32Array.from(g.grad.dataSync()),
          clipFrac: read(g.clipFrac),
          pg: read(o.policyLoss),
          v: read(o.valueLoss),
          entropy: read(o.entropy),
          kl: read(o.approxKl),
        };
      });
      const maxAbs = ref.grad.reduce((a, v) => Math.max(a, Math.abs(v)), 0);
      expect(maxAbs).toBeGreaterThan(0.05);
      for (let i = 0; i < l.size; i++) expect(Math.abs(kernel.grad[i]! - ref.grad[i]!)).toBeLessThan(1e-5 * maxAbs);
      expect(losses.clipFrac).toBe(ref.clipFrac);
      expect(ref.clipFrac).toBeGreaterThan(0);
      expect(losses.policyLoss).toBeCloseTo(ref.pg, 5);
      expect(losses.valueLoss).toBeCloseTo(ref.v, 5);
      expect(losses.entropy).toBeCloseTo(ref.entropy, 5);
      expect(losses.approxKl).toBeCloseTo(ref.kl, 5);
    }
  });
});
