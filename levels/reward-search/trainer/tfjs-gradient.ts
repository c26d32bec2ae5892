/**
 * The test suite's reference for the PPO kernels (ppo-gradient.ts): the PPO loss's gradient on tfjs, written out
 * by hand, as the trainer computed it on tfjs-backend-wasm before the kernels: the actor-critic's forward pass
 * on a minibatch on flat θ and the backward pass of the clipped surrogate, the (clipped) value loss and the
 * entropy bonus through it. tfjs-gradient.test.ts holds it equal to tfjs autodiff of the loss as CleanRL writes
 * it (tfjs's tie rules: max(a, b) sends the gradient to a when a ≥ b, clip passes it on the closed interval);
 * ppo-gradient.test.ts holds the kernels equal to it. Test support only: the trainer never loads tfjs.
 *
 * Alongside, the loss diagnostics CleanRL logs (losses/*): the fraction of clipped ratios, and on request the
 * policy and value losses, the entropy and approx_kl.
 */
import type { PolicyLayout } from "./policy.ts";
import { LOG_2PI, type ObjectiveConfig } from "./ppo-gradient.ts";
import { tf } from "./tf.ts";

export interface MinibatchTensors {
  obs: tf.Tensor2D;
  /** One-hot B × n (discrete) or B × dim values (continuous). */
  actions: tf.Tensor2D;
  oldLogp: tf.Tensor1D;
  adv: tf.Tensor1D;
  returns: tf.Tensor1D;
  oldValue: tf.Tensor1D;
}

/** CleanRL's losses/* of one minibatch, before its update (scalars). */
interface LossTensors {
  /** Clipped surrogate, mean over the minibatch (losses/policy_loss). */
  policyLoss: tf.Scalar;
  /** ½ · mean of the (clipped) squared error (losses/value_loss). */
  valueLoss: tf.Scalar;
  /** Mean entropy of the policy (losses/entropy). */
  entropy: tf.Scalar;
  /** mean((ratio − 1) − log ratio) (losses/approx_kl). */
  approxKl: tf.Scalar;
}

export interface GradientOut {
  grad: tf.Tensor1D;
  /** Fraction of the minibatch whose ratio lies outside [1 − clip, 1 + clip] (losses/clipfrac). */
  clipFrac: tf.Scalar;
  /** Only when asked for. */
  losses: LossTensors | null;
}

/** θ split into its named parameters, shaped. */
export const unflatten = (l: PolicyLayout, theta: tf.Tensor1D): Record<string, tf.Tensor> => {
  const parts = tf.split(
    theta,
    l.params.map((p) => p.size),
  );
  const P: Record<string, tf.Tensor> = {};
  l.params.forEach((p, i) => {
    P[p.name] = p.shape.length === 1 ? parts[i]! : parts[i]!.reshape(p.shape as number[]);
  });
  return P;
};

type Params = Record<string, tf.Tensor2D>;

/** The actor-critic's activations on a minibatch: the policy trunk, its head, the critic trunk (null when shared), the value. */
interface Forward {
  a1: tf.Tensor2D;
  a2: tf.Tensor2D;
  head: tf.Tensor2D;
  c1: tf.Tensor2D | null;
  c2: tf.Tensor2D;
  value: tf.Tensor;
}

const forward = (l: PolicyLayout, P: Params, obs: tf.Tensor2D): Forward => {
  const B = obs.shape[0];
  const dense = (a: tf.Tensor2D, w: string, b: string) => tf.fused.matMul({ a, b: P[w]!, bias: P[b] }) as tf.Tensor2D;
  // From 256 rows on, tanh as 2σ(2x) − 1: the wasm Tanh kernel is ~3× slower than Sigmoid on a 512 × 64 block
  // (measured; below 256 rows the three extra kernels cost more than they save).
  const tanh = (z: tf.Tensor2D) => (B >= 256 ? (tf.sub(tf.mul(tf.sigmoid(tf.mul(z, 2)), 2), 1) as tf.Tensor2D) : tf.tanh(z));
  const a1 = tanh(dense(obs, "pi.w1", "pi.b1"));
  const a2 = tanh(dense(a1, "pi.w2", "pi.b2"));
  const head = dense(a2, "pi.w3", "pi.b3");
  const c1 = l.shared ? null : tanh(dense(obs, "v.w1", "v.b1"));
  const c2 = l.shared ? a2 : tanh(dense(c1!, "v.w2", "v.b2"));
  const value = tf.reshape(dense(c2, "v.w3", "v.b3"), [-1]);
  return { a1, a2, head, c1, c2, value };
};

/** The value loss's gradient (B × 1), and what its diagnostic needs: the error and, clipped, the larger square. */
interface ValueGradient {
  dvCol: tf.Tensor2D;
  diff: tf.Tensor;
  squaredError: tf.Tensor | null;
}

/** ∂/∂value of vfCoef · ½ mean(max(u, clipped)). */
const valueGradient = (value: tf.Tensor, x: MinibatchTensors, c: ObjectiveConfig, withLosses: boolean): ValueGradient => {
  const B = x.obs.shape[0];
  const diff = tf.sub(value, x.returns);
  let dv: tf.Tensor;
  let squaredError: tf.Tensor | null = null;
  if (c.clipValueLoss) {
    const dOld = tf.sub(value, x.oldValue);
    const vcDiff = tf.sub(tf.add(x.oldValue, tf.clipByValue(dOld, -c.clipCoef, c.clipCoef)), x.returns);
    const inRange = tf.cast(tf.lessEqual(tf.abs(dOld), c.clipCoef), "float32");
    const unclippedSq = tf.square(diff),
      clippedSq = tf.square(vcDiff);
    dv = tf.where(tf.greaterEqual(unclippedSq, clippedSq), diff, tf.mul(vcDiff, inRange));
    if (withLosses) squaredError = tf.maximum(unclippedSq, clippedSq);
  } else dv = diff;
  return { dvCol: tf.reshape(tf.mul(dv, c.vfCoef / B), [B, 1]) as tf.Tensor2D, diff, squaredError };
};

/** The clipped surrogate's terms, kept for the diagnostics, and its gradient ∂/∂newLogp (B × 1). */
interface Surrogate {
  dnl: tf.Tensor2D;
  logRatio: tf.Tensor;
  ratio: tf.Tensor;
  clippedRatio: tf.Tensor;
  unclipped: tf.Tensor;
  clipped: tf.Tensor;
}

const surrogate = (newLogp: tf.Tensor, x: MinibatchTensors, c: ObjectiveConfig): Surrogate => {
  const B = x.obs.shape[0];
  const negAdv = tf.neg(x.adv);
  const logRatio = tf.sub(newLogp, x.oldLogp);
  const ratio = tf.exp(logRatio);
  const unclipped = tf.mul(negAdv, ratio);
  const clippedRatio = tf.clipByValue(ratio, 1 - c.clipCoef, 1 + c.clipCoef);
  const clipped = tf.mul(negAdv, clippedRatio);
  const mask = tf.cast(tf.greaterEqual(unclipped, clipped), "float32");
  const dnl = tf.reshape(tf.mul(unclipped, tf.mul(mask, 1 / B)), [B, 1]) as tf.Tensor2D;
  return { dnl, logRatio, ratio, clippedRatio, unclipped, clipped };
};

/** The policy part of the loss through the head: its gradient, the surrogate, the entropy (when asked for). */
interface HeadGradient {
  dHead: tf.Tensor2D;
  t: Surrogate;
  entropy: tf.Scalar | null;
}

/** Categorical policy: the surrogate's and the entropy bonus's gradient with respect to the logits. */
const categoricalHead = (head: tf.Tensor2D, x: MinibatchTensors, c: ObjectiveConfig, withLosses: boolean): HeadGradient => {
  const B = x.obs.shape[0];
  const logp = tf.logSoftmax(head);
  const p = tf.exp(logp);
  const t = surrogate(tf.sum(tf.mul(logp, x.actions), 1), x, c);
  const rowH = tf.neg(tf.sum(tf.mul(p, logp), 1, true));
  const dHead = tf.add(tf.mul(t.dnl, tf.sub(x.actions, p)), tf.mul(tf.mul(p, tf.add(logp, rowH)), c.entCoef / B)) as tf.Tensor2D;
  return { dHead, t, entropy: withLosses ? (tf.mean(rowH) as tf.Scalar) : null };
};

/** Gaussian policy: the surrogate's gradient with respect to the means, and g.logStd (with the entropy bonus's). */
const gaussianHead = (
  l: PolicyLayout,
  P: Params,
  head: tf.Tensor2D,
  x: MinibatchTensors,
  c: ObjectiveConfig,
  withLosses: boolean,
  g: Record<string, tf.Tensor>,
): HeadGradient => {
  const logStd = P.logStd as unknown as tf.Tensor1D;
  const invStd = tf.exp(tf.neg(logStd));
  const z = tf.mul(tf.sub(x.actions, head), invStd);
  const newLogp = tf.sub(tf.mul(-0.5, tf.sum(tf.square(z), 1)), tf.add(tf.sum(logStd), 0.5 * l.outDim * LOG_2PI));
  const t = surrogate(newLogp, x, c);
  const dHead = tf.mul(tf.mul(t.dnl, z), invStd) as tf.Tensor2D;
  g.logStd = tf.sub(tf.sum(tf.mul(t.dnl, tf.sub(tf.square(z), 1)), 0), c.entCoef);
  return { dHead, t, entropy: withLosses ? (tf.add(tf.sum(logStd), l.outDim * 0.5 * (1 + LOG_2PI)) as tf.Scalar) : null };
};

/**
 * Gradients of layer (w, b) into g from its pre-activation gradient; returns the gradient of its input. Transposes
 * are explicit: the wasm BatchMatMul with transposeA/transposeB skips XNNPACK and is ~10× slower than a
 * Transpose followed by a plain MatMul.
 */
const back = (g: Record<string, tf.Tensor>, P: Params, input: tf.Tensor2D, dOut: tf.Tensor2D, w: string, b: string, needInput: boolean): tf.Tensor2D | null => {
  g[w] = tf.matMul(tf.transpose(input), dOut);
  g[b] = tf.sum(dOut, 0);
  return needInput ? (tf.matMul(dOut, tf.transpose(P[w]!)) as tf.Tensor2D) : null;
};

const tanhBack = (d: tf.Tensor2D, y: tf.Tensor2D) => tf.mul(d, tf.sub(1, tf.square(y))) as tf.Tensor2D;

/** Backward through the MLPs from the head's and the value's gradients: every weight's gradient into g. */
const backward = (l: PolicyLayout, P: Params, obs: tf.Tensor2D, f: Forward, dHead: tf.Tensor2D, dvCol: tf.Tensor2D, g: Record<string, tf.Tensor>): void => {
  let da2 = back(g, P, f.a2, dHead, "pi.w3", "pi.b3", true)!;
  const dc2 = back(g, P, f.c2, dvCol, "v.w3", "v.b3", true)!;
  if (l.shared) da2 = tf.add(da2, dc2) as tf.Tensor2D;
  const dz2 = tanhBack(da2, f.a2);
  const dz1 = tanhBack(back(g, P, f.a1, dz2, "pi.w2", "pi.b2", true)!, f.a1);
  back(g, P, obs, dz1, "pi.w1", "pi.b1", false);
  if (!l.shared) {
    const dcz2 = tanhBack(dc2, f.c2);
    const dcz1 = tanhBack(back(g, P, f.c1!, dcz2, "v.w2", "v.b2", true)!, f.c1!);
    back(g, P, obs, dcz1, "v.w1", "v.b1", false);
  }
};

/** ∂loss/∂θ of the PPO loss (clipped surrogate + vfCoef · value loss − entCoef · entropy) on one minibatch. */
export const manualGradient = (l: PolicyLayout, theta: tf.Tensor1D, x: MinibatchTensors, c: ObjectiveConfig, withLosses = false): GradientOut => {
  const P = unflatten(l, theta) as Params;
  const f = forward(l, P, x.obs);
  const v = valueGradient(f.value, x, c, withLosses);
  const g: Record<string, tf.Tensor> = {};
  const { dHead, t, entropy } = l.action.kind === "discrete" ? categoricalHead(f.head, x, c, withLosses) : gaussianHead(l, P, f.head, x, c, withLosses, g);
  backward(l, P, x.obs, f, dHead, v.dvCol, g);
  const grad = tf.concat(l.params.map((p) => (p.shape.length === 1 ? g[p.name]! : tf.reshape(g[p.name]!, [-1])))) as tf.Tensor1D;

  const clipFrac = tf.mean(tf.cast(tf.notEqual(t.ratio, t.clippedRatio), "float32")) as tf.Scalar;
  const losses: LossTensors | null = withLosses
    ? {
        policyLoss: tf.mean(tf.maximum(t.unclipped, t.clipped)) as tf.Scalar,
        valueLoss: tf.mul(0.5, tf.mean(v.squaredError ?? tf.square(v.diff))) as tf.Scalar,
        entropy: entropy!,
        approxKl: tf.mean(tf.sub(tf.sub(t.ratio, 1), t.logRatio)) as tf.Scalar,
      }
    : null;
  return { grad, clipFrac, losses };
};
