/**
 * CleanRL-style PPO (ppo.py / ppo_continuous_action.py) on TensorFlow.js's wasm backend: vectorised envs,
 * GAE, per-minibatch advantage normalisation, clipped surrogate, clipped value loss, entropy bonus, global
 * gradient-norm clipping, Adam (eps 1e-5) with linear learning-rate annealing.
 *
 * Kept lean because the update is ~90% of the time: θ is one flat variable (one split op in the forward, one
 * concat in the backward, Adam and the norm clip on one vector), one fused loss per minibatch inside tf.tidy,
 * rollout and evaluation inference in plain JS on a copy of θ (batched over envs), the reward program called
 * after each rollout on all its T × N transitions (chunks of REWARD_CHUNK rows: a few sandbox crossings per
 * iteration, not one per step), data in typed arrays. The gradient is written out by hand (manualGradient,
 * tested equal to tfjs autodiff): ~150 kernels per minibatch step instead of ~330.
 *
 * Choices that differ from CleanRL, on purpose:
 * - Truncation (time limit) is bootstrapped: r_t += γ·V(s_{t+1}) with the true next observation, then the
 *   episode is cut for GAE. CleanRL treats truncation like termination, which makes the value of a state depend
 *   on an unobserved clock (CartPole's 500-step cap).
 * - Observation and reward normalisation (gym NormalizeObservation / NormalizeReward, clip ±10, as CleanRL's
 *   continuous script) default to on for continuous actions and off for discrete ones; see TrainerOptions.
 */
import { z } from "zod";
import {
  PpoConfig,
  type RewardBatchInput,
  type RewardOutput,
  type RewardProgram,
  type RewardTask,
  type TaskInstance,
  type VecEnv,
} from "../task.ts";
import { ModelOutputError } from "../../../src/errors.ts";
import {
  forward, greedyActions, initParams, policyLayout, RunningNorm, sampleActions, serializePolicy, valueOf,
  type PolicyLayout, type SerializedPolicy,
} from "./policy.ts";
import { xoshiro128ss, type FastRng as Rng } from "../../../src/util/rng.ts";
import { mean } from "../../../src/util/stats.ts";
import { initTf, tf } from "./tf.ts";

/**
 * The reward made training unusable: weights became NaN/∞ (rewards of huge magnitude), or the program returned
 * the wrong number of values. Feedback for the reward's author, like RewardCodeError (src/sandbox).
 */
export class TrainingDivergedError extends ModelOutputError {}

/** Trainer settings outside PpoConfig (algorithm variants rather than budget-tuned numbers). */
export const TrainerOptions = z.strictObject({
  clipValueLoss: z.boolean().default(true).describe("clip the value loss around the rollout's values (CleanRL clip_vloss)"),
  normalizeObs: z.boolean().optional().describe("running mean/std observation normalisation; default: on for continuous actions"),
  normalizeReward: z.boolean().optional().describe("scale rewards by the running std of the discounted return; default: on for continuous actions"),
  sharedNetwork: z.boolean().default(false).describe("one 2×hidden trunk with policy and value heads instead of two MLPs"),
  checkpoints: z.number().int().min(1).default(10).describe("deterministic evaluations on the eval seeds during training (the last is the final policy)"),
});
export type TrainerOptions = z.infer<typeof TrainerOptions>;

export interface ComponentStats { mean: number; min: number; max: number }

export interface TrainProgress {
  iteration: number;
  steps: number;
  /** Mean F of the training episodes that finished in this iteration; null if none did. */
  fitness: number | null;
  episodeLength: number | null;
  components: Record<string, ComponentStats>;
}

export interface TrainRequest {
  task: RewardTask;
  instance: TaskInstance;
  reward: RewardProgram;
  /** Env-step budget; training runs floor(steps / (numEnvs × numSteps)) iterations (at least one). */
  steps: number;
  seed: number;
  evalSeeds: number[];
  ppo?: Partial<PpoConfig>;
  options?: Partial<TrainerOptions>;
  signal?: AbortSignal;
  onProgress?: (p: TrainProgress) => void;
}

export interface TrainResult {
  /** F of the final policy: deterministic (argmax / mean) actions, one episode per eval seed on a fresh env. */
  final: { fitness: number; perSeed: number[] };
  /** Best of the checkpoint evaluations (same seeds, same rule): labelled as such, never the reported score. */
  bestCheckpoint: { fitness: number; step: number };
  /** Per reward component: mean, min, max over each window between checkpoints (Eureka's reward reflection). */
  components: Record<string, Array<{ step: number } & ComponentStats>>;
  /** Mean length of the training episodes that finished in each window. */
  episodeLength: Array<{ step: number; mean: number }>;
  /** The checkpoint evaluations (mean F over the eval seeds). */
  fitnessCurve: Array<{ step: number; fitness: number }>;
  steps: number;
  wallMs: number;
  /** Where the wall time went (ms): rollout (policy inference + env), reward program, PPO update, checkpoint evaluations. */
  timing: { rolloutMs: number; rewardMs: number; updateMs: number; evalMs: number; updates: number };
  policy: SerializedPolicy;
}

// ---------------------------------------------------------------- pure pieces

/** CleanRL's linear annealing: lr · (1 − iteration / numIterations) for iteration = 0, 1, …. */
export const lrAt = (iteration: number, numIterations: number, lr: number, anneal: boolean): number =>
  anneal ? lr * (1 - iteration / numIterations) : lr;

/**
 * Generalised advantage estimation over a T × N rollout (row t·N + e). done[t·N+e] = 1 where transition t ended
 * env e's episode (terminated or truncated: any truncation bootstrap is already in the reward); nextValue is V
 * of the observation after the last step.
 */
export const gae = (a: {
  rewards: ArrayLike<number>; values: ArrayLike<number>; dones: ArrayLike<number>; nextValue: ArrayLike<number>;
  numSteps: number; numEnvs: number; gamma: number; lambda: number;
}): { advantages: Float64Array; returns: Float64Array } => {
  const { numSteps: T, numEnvs: N, gamma, lambda } = a;
  const adv = new Float64Array(T * N), ret = new Float64Array(T * N);
  for (let e = 0; e < N; e++) {
    let last = 0;
    for (let t = T - 1; t >= 0; t--) {
      const i = t * N + e;
      const notDone = 1 - a.dones[i]!;
      const nextV = t === T - 1 ? a.nextValue[e]! : a.values[i + N]!;
      const delta = a.rewards[i]! + gamma * nextV * notDone - a.values[i]!;
      last = delta + gamma * lambda * notDone * last;
      adv[i] = last;
      ret[i] = last + a.values[i]!;
    }
  }
  return { advantages: adv, returns: ret };
};

/** (x − mean) / (std + 1e-8) with the unbiased std (torch's .std()), as CleanRL normalises each minibatch. */
export const normalizeAdvantages = (x: ArrayLike<number>): Float64Array => {
  const n = x.length;
  let m = 0;
  for (let i = 0; i < n; i++) m += x[i]!;
  m /= n;
  let v = 0;
  for (let i = 0; i < n; i++) v += (x[i]! - m) ** 2;
  const std = n > 1 ? Math.sqrt(v / (n - 1)) : 0;
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) out[i] = (x[i]! - m) / (std + 1e-8);
  return out;
};

export interface ObjectiveInput {
  newLogp: tf.Tensor1D; oldLogp: tf.Tensor1D; adv: tf.Tensor1D;
  newValue: tf.Tensor1D; oldValue: tf.Tensor1D; returns: tf.Tensor1D;
  /** Mean entropy of the minibatch (scalar). */
  entropy: tf.Scalar;
}
export type ObjectiveConfig = Pick<PpoConfig, "clipCoef" | "entCoef" | "vfCoef"> & { clipValueLoss: boolean };

/** The PPO loss: clipped surrogate + vfCoef · (clipped) value loss − entCoef · entropy; also the three terms. */
export const ppoObjective = (x: ObjectiveInput, c: ObjectiveConfig): { loss: tf.Scalar; pg: tf.Scalar; v: tf.Scalar; entropy: tf.Scalar } => {
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

const LOG_2PI = Math.log(2 * Math.PI);

/**
 * The network in tf on flat θ, and each row's log-probability of its action plus the mean entropy. Discrete
 * actions come as a one-hot B × n matrix, continuous ones as B × dim values.
 */
export const policyTerms = (l: PolicyLayout, theta: tf.Tensor1D, obs: tf.Tensor2D, actions: tf.Tensor2D): { newLogp: tf.Tensor1D; entropy: tf.Scalar; newValue: tf.Tensor1D } => {
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

/** θ split into its named parameters, shaped. */
export const unflatten = (l: PolicyLayout, theta: tf.Tensor1D): Record<string, tf.Tensor> => {
  const parts = tf.split(theta, l.params.map((p) => p.size));
  const P: Record<string, tf.Tensor> = {};
  l.params.forEach((p, i) => { P[p.name] = p.shape.length === 1 ? parts[i]! : parts[i]!.reshape(p.shape as number[]); });
  return P;
};

export interface MinibatchTensors {
  obs: tf.Tensor2D; actions: tf.Tensor2D; oldLogp: tf.Tensor1D; adv: tf.Tensor1D; returns: tf.Tensor1D; oldValue: tf.Tensor1D;
}

/** ∂loss/∂θ by autodiff of policyTerms + ppoObjective: the reference the hand-written gradient is tested against. */
export const autodiffGradient = (l: PolicyLayout, theta: tf.Variable<tf.Rank.R1>, x: MinibatchTensors, c: ObjectiveConfig): tf.Tensor1D => {
  const { grads } = tf.variableGrads(() => ppoObjective({ ...policyTerms(l, theta, x.obs, x.actions), ...x }, c).loss, [theta]);
  return grads[theta.name] as tf.Tensor1D;
};

/**
 * ∂loss/∂θ written out by hand (forward once, backward through the two tanh layers of each MLP): the same
 * gradient as autodiffGradient (tfjs's tie rules: max(a, b) sends the gradient to a when a ≥ b, clip passes it on
 * the closed interval) in about a third of the kernels, which is most of an update's cost on wasm.
 */
export const manualGradient = (l: PolicyLayout, theta: tf.Tensor1D, x: MinibatchTensors, c: ObjectiveConfig): tf.Tensor1D => {
  const P = unflatten(l, theta) as Record<string, tf.Tensor2D>;
  const B = x.obs.shape[0];
  const dense = (a: tf.Tensor2D, w: string, b: string) => tf.fused.matMul({ a, b: P[w]!, bias: P[b] }) as tf.Tensor2D;
  // From 256 rows on, tanh as 2σ(2x) − 1: the wasm Tanh kernel is ~3× slower than Sigmoid on a 512 × 64 block
  // (measured; below 256 rows the three extra kernels cost more than they save).
  const tanh = (z: tf.Tensor2D) => (B >= 256 ? (tf.sub(tf.mul(tf.sigmoid(tf.mul(z, 2)), 2), 1) as tf.Tensor2D) : tf.tanh(z));
  const a1 = tanh(dense(x.obs, "pi.w1", "pi.b1"));
  const a2 = tanh(dense(a1, "pi.w2", "pi.b2"));
  const head = dense(a2, "pi.w3", "pi.b3");
  const c1 = l.shared ? null : tanh(dense(x.obs, "v.w1", "v.b1"));
  const c2 = l.shared ? a2 : tanh(dense(c1!, "v.w2", "v.b2"));
  const value = tf.reshape(dense(c2, "v.w3", "v.b3"), [-1]);

  // ∂/∂value of vfCoef · ½ mean(max(u, clipped)).
  const diff = tf.sub(value, x.returns);
  let dv: tf.Tensor;
  if (c.clipValueLoss) {
    const dOld = tf.sub(value, x.oldValue);
    const vcDiff = tf.sub(tf.add(x.oldValue, tf.clipByValue(dOld, -c.clipCoef, c.clipCoef)), x.returns);
    const inRange = tf.cast(tf.lessEqual(tf.abs(dOld), c.clipCoef), "float32");
    dv = tf.where(tf.greaterEqual(tf.square(diff), tf.square(vcDiff)), diff, tf.mul(vcDiff, inRange));
  } else dv = diff;
  const dvCol = tf.reshape(tf.mul(dv, c.vfCoef / B), [B, 1]) as tf.Tensor2D;

  // ∂/∂newLogp of the clipped surrogate.
  const g: Record<string, tf.Tensor> = {};
  const negAdv = tf.neg(x.adv);
  const surrogate = (newLogp: tf.Tensor): tf.Tensor2D => {
    const ratio = tf.exp(tf.sub(newLogp, x.oldLogp));
    const unclipped = tf.mul(negAdv, ratio);
    const mask = tf.cast(tf.greaterEqual(unclipped, tf.mul(negAdv, tf.clipByValue(ratio, 1 - c.clipCoef, 1 + c.clipCoef))), "float32");
    return tf.reshape(tf.mul(unclipped, tf.mul(mask, 1 / B)), [B, 1]) as tf.Tensor2D;
  };
  let dHead: tf.Tensor2D;
  if (l.action.kind === "discrete") {
    const logp = tf.logSoftmax(head);
    const p = tf.exp(logp);
    const dnl = surrogate(tf.sum(tf.mul(logp, x.actions), 1));
    const rowH = tf.neg(tf.sum(tf.mul(p, logp), 1, true));
    dHead = tf.add(tf.mul(dnl, tf.sub(x.actions, p)), tf.mul(tf.mul(p, tf.add(logp, rowH)), c.entCoef / B)) as tf.Tensor2D;
  } else {
    const logStd = P.logStd as unknown as tf.Tensor1D;
    const invStd = tf.exp(tf.neg(logStd));
    const z = tf.mul(tf.sub(x.actions, head), invStd);
    const newLogp = tf.sub(tf.mul(-0.5, tf.sum(tf.square(z), 1)), tf.add(tf.sum(logStd), 0.5 * l.outDim * LOG_2PI));
    const dnl = surrogate(newLogp);
    dHead = tf.mul(tf.mul(dnl, z), invStd) as tf.Tensor2D;
    g.logStd = tf.sub(tf.sum(tf.mul(dnl, tf.sub(tf.square(z), 1)), 0), c.entCoef);
  }

  // Backward through the MLPs.
  /**
   * Gradients of layer (w, b) from its pre-activation gradient; returns the gradient of its input. Transposes
   * are explicit: the wasm BatchMatMul with transposeA/transposeB skips XNNPACK and is ~10× slower than a
   * Transpose followed by a plain MatMul.
   */
  const back = (input: tf.Tensor2D, dOut: tf.Tensor2D, w: string, b: string, needInput: boolean): tf.Tensor2D | null => {
    g[w] = tf.matMul(tf.transpose(input), dOut);
    g[b] = tf.sum(dOut, 0);
    return needInput ? (tf.matMul(dOut, tf.transpose(P[w]!)) as tf.Tensor2D) : null;
  };
  const tanhBack = (d: tf.Tensor2D, y: tf.Tensor2D) => tf.mul(d, tf.sub(1, tf.square(y))) as tf.Tensor2D;
  let da2 = back(a2, dHead, "pi.w3", "pi.b3", true)!;
  const dc2 = back(c2, dvCol, "v.w3", "v.b3", true)!;
  if (l.shared) da2 = tf.add(da2, dc2) as tf.Tensor2D;
  const dz2 = tanhBack(da2, a2);
  const dz1 = tanhBack(back(a1, dz2, "pi.w2", "pi.b2", true)!, a1);
  back(x.obs, dz1, "pi.w1", "pi.b1", false);
  if (!l.shared) {
    const dcz2 = tanhBack(dc2, c2);
    const dcz1 = tanhBack(back(c1!, dcz2, "v.w2", "v.b2", true)!, c1!);
    back(x.obs, dcz1, "v.w1", "v.b1", false);
  }
  return tf.concat(l.params.map((p) => (p.shape.length === 1 ? g[p.name]! : tf.reshape(g[p.name]!, [-1])))) as tf.Tensor1D;
};

export interface Minibatch {
  size: number;
  obs: Float32Array; actions: Float32Array; oldLogp: Float32Array; adv: Float32Array; returns: Float32Array; oldValue: Float32Array;
}

/** θ as a tf variable with Adam (β 0.9/0.999, eps 1e-5 as CleanRL) and global-norm clipping on the flat gradient. */
export class FlatAdam {
  readonly theta: tf.Variable<tf.Rank.R1>;
  private readonly m: tf.Variable<tf.Rank.R1>;
  private readonly v: tf.Variable<tf.Rank.R1>;
  private t = 0;
  constructor(
    private readonly layout: PolicyLayout,
    init: Float32Array,
    private readonly cfg: ObjectiveConfig & { maxGradNorm: number },
    private readonly gradient: "manual" | "autodiff" = "manual",
  ) {
    [this.theta, this.m, this.v] = tf.tidy(() => [
      tf.variable(tf.tensor1d(init), true), tf.variable(tf.zeros([init.length]), false), tf.variable(tf.zeros([init.length]), false),
    ]);
  }

  step(mb: Minibatch, lr: number): void {
    const { layout: l, cfg } = this;
    const b1 = 0.9, b2 = 0.999, eps = 1e-5;
    this.t++;
    const bc1 = 1 - b1 ** this.t, bc2 = 1 - b2 ** this.t;
    tf.tidy(() => {
      const k = l.action.kind === "discrete" ? l.action.n : l.action.dim;
      const x: MinibatchTensors = {
        obs: tf.tensor2d(mb.obs, [mb.size, l.obsDim]), actions: tf.tensor2d(mb.actions, [mb.size, k]),
        oldLogp: tf.tensor1d(mb.oldLogp), adv: tf.tensor1d(mb.adv), returns: tf.tensor1d(mb.returns), oldValue: tf.tensor1d(mb.oldValue),
      };
      const g = this.gradient === "manual" ? manualGradient(l, this.theta, x, cfg) : autodiffGradient(l, this.theta, x, cfg);
      const norm = tf.sqrt(tf.sum(tf.square(g)));
      const scale = tf.minimum(1, tf.div(cfg.maxGradNorm, tf.add(norm, 1e-6)));
      const m1 = tf.add(tf.mul(this.m, b1), tf.mul(g, tf.mul(scale, 1 - b1)));
      const v1 = tf.add(tf.mul(this.v, b2), tf.mul(tf.square(g), tf.mul(tf.square(scale), 1 - b2)));
      const update = tf.div(tf.mul(m1, lr / bc1), tf.add(tf.mul(tf.sqrt(v1), 1 / Math.sqrt(bc2)), eps));
      this.theta.assign(tf.sub(this.theta, update) as tf.Tensor1D);
      this.m.assign(m1 as tf.Tensor1D);
      this.v.assign(v1 as tf.Tensor1D);
    });
  }

  read(): Float32Array {
    return this.theta.dataSync() as Float32Array;
  }

  dispose(): void {
    this.theta.dispose();
    this.m.dispose();
    this.v.dispose();
  }
}

/** gym's NormalizeReward: divide by the running std of the discounted return (reset at episode ends), clip ±10. */
export class RewardScaler {
  private readonly ret: Float64Array;
  private mean = 0;
  private var = 1;
  private count = 1e-4;
  constructor(numEnvs: number, private readonly gamma: number) {
    this.ret = new Float64Array(numEnvs);
  }
  /** Scale a T × N block in place (row t·N + e), in time order. */
  apply(r: Float64Array, dones: Uint8Array, numSteps: number): void {
    const N = this.ret.length;
    for (let t = 0; t < numSteps; t++) {
      let m = 0;
      for (let e = 0; e < N; e++) { this.ret[e] = this.ret[e]! * this.gamma + r[t * N + e]!; m += this.ret[e]!; }
      m /= N;
      let v = 0;
      for (let e = 0; e < N; e++) v += (this.ret[e]! - m) ** 2;
      v /= N;
      const delta = m - this.mean, tot = this.count + N;
      this.var = (this.var * this.count + v * N + delta * delta * this.count * N / tot) / tot;
      this.mean += delta * N / tot;
      this.count = tot;
      const sd = Math.sqrt(this.var + 1e-8);
      for (let e = 0; e < N; e++) {
        const i = t * N + e;
        r[i] = Math.max(-10, Math.min(10, r[i]! / sd));
        if (dones[i]) this.ret[e] = 0;
      }
    }
  }
}

// ---------------------------------------------------------------- evaluation

/** F of one greedy episode per seed, each on a fresh single env, up to the task's time limit. */
export const evaluateGreedy = (
  task: RewardTask, instance: TaskInstance, layout: PolicyLayout, theta: Float32Array, norm: RunningNorm | null, seeds: readonly number[],
): number[] =>
  seeds.map((seed) => {
    const env = task.makeEnv(instance, 1);
    let obs = env.reset(seed);
    let f = 0;
    for (let t = 0; t < task.maxEpisodeSteps; t++) {
      const head = forward(layout, theta, norm ? norm.apply(obs) : obs, 1, false).head;
      const b = env.step(greedyActions(layout, head, 1));
      f += b.fitness[0]!;
      if (b.terminated[0] || b.truncated[0]) break;
      obs = b.obs;
    }
    return f;
  });

// ---------------------------------------------------------------- training

const abortError = (signal: AbortSignal): Error => {
  const reason: unknown = signal.reason;
  if (reason instanceof Error) return reason;
  const e = new Error(typeof reason === "string" ? reason : "training cancelled");
  e.name = "AbortError";
  return e;
};

const stats = (x: Float64Array): ComponentStats => {
  let s = 0, lo = Infinity, hi = -Infinity;
  for (let i = 0; i < x.length; i++) { const v = x[i]!; s += v; if (v < lo) lo = v; if (v > hi) hi = v; }
  return { mean: s / x.length, min: lo, max: hi };
};

/** Iterations (0-based) after which a checkpoint evaluation runs: ~evenly spaced, always the last. */
export const checkpointIterations = (numIterations: number, count: number): Set<number> => {
  const s = new Set<number>();
  const c = Math.min(count, numIterations);
  for (let j = 1; j <= c; j++) s.add(Math.round((j * numIterations) / c) - 1);
  return s;
};

const checkRewardOutput = (out: RewardOutput, n: number): void => {
  const bad = (what: string, len: number) =>
    new TrainingDivergedError(`reward: ${what} has ${len} entries for a batch of ${n}; return one number per transition`);
  if (!out || !(out.total instanceof Float64Array || Array.isArray(out.total)) || out.total.length !== n) throw bad("total", out?.total?.length ?? 0);
  for (const [k, v] of Object.entries(out.components ?? {})) if (v.length !== n) throw bad(`component ${k}`, v.length);
};

/**
 * Rows per reward call: a rollout's transitions go to the program in chunks of this many (a few crossings per
 * iteration, each well inside the sandbox's per-call CPU limit even for 2048-step rollouts).
 */
export const REWARD_CHUNK = 512;

/** reward.evaluate over b in chunks of ≤ chunk rows, outputs joined (a component missing in a chunk reads 0). */
export const evaluateChunked = (reward: RewardProgram, b: RewardBatchInput, obsDim: number, actDim: number, chunk = REWARD_CHUNK): RewardOutput => {
  if (b.n <= chunk) {
    const out = reward.evaluate(b);
    checkRewardOutput(out, b.n);
    return out;
  }
  const total = new Float64Array(b.n);
  const components: Record<string, Float64Array> = {};
  for (let i0 = 0; i0 < b.n; i0 += chunk) {
    const i1 = Math.min(b.n, i0 + chunk), n = i1 - i0;
    const info: Record<string, Float64Array> = {};
    for (const [k, v] of Object.entries(b.info)) info[k] = v.subarray(i0, i1);
    const out = reward.evaluate({
      n, obs: b.obs.subarray(i0 * obsDim, i1 * obsDim), action: b.action.subarray(i0 * actDim, i1 * actDim),
      nextObs: b.nextObs.subarray(i0 * obsDim, i1 * obsDim), info,
    });
    checkRewardOutput(out, n);
    total.set(out.total, i0);
    for (const [k, v] of Object.entries(out.components ?? {})) (components[k] ??= new Float64Array(b.n)).set(v, i0);
  }
  return { total, components };
};

export const trainPpo = async (req: TrainRequest): Promise<TrainResult> => {
  const t0 = performance.now();
  const { task, instance, reward, signal } = req;
  if (signal?.aborted) throw abortError(signal);
  await initTf();
  const cfg = PpoConfig.parse({ ...task.training.ppo, ...req.ppo });
  const opt = TrainerOptions.parse(req.options ?? {});
  const N = cfg.numEnvs, T = cfg.numSteps, B = N * T;
  const numIterations = Math.max(1, Math.floor(req.steps / B));
  const env: VecEnv = task.makeEnv(instance, N);
  const d = env.obsDim, space = env.action;
  const continuous = space.kind === "continuous";
  const aDim = continuous ? space.dim : 1;
  const k = continuous ? space.dim : space.n;
  const layout = policyLayout({ obsDim: d, action: space, hidden: cfg.hidden, shared: opt.sharedNetwork });
  const rng: Rng = xoshiro128ss(req.seed);
  const norm = opt.normalizeObs ?? continuous ? new RunningNorm(d) : null;
  const scaler = opt.normalizeReward ?? continuous ? new RewardScaler(N, cfg.gamma) : null;
  const adam = new FlatAdam(layout, initParams(layout, rng), { ...cfg, clipValueLoss: opt.clipValueLoss });
  const checkpoints = checkpointIterations(numIterations, opt.checkpoints);
  const mbSize = Math.min(cfg.minibatchSize, B);
  const numMb = Math.floor(B / mbSize);

  // Rollout buffers, row t·N + e.
  const obsBuf = new Float32Array(B * d), rawObs = new Float64Array(B * d), nextObsBuf = new Float64Array(B * d);
  const actBuf = new Float64Array(B * aDim), rewAct = new Float64Array(B * aDim);
  const logpBuf = new Float64Array(B), valBuf = new Float64Array(B), bootBuf = new Float64Array(B);
  const doneBuf = new Uint8Array(B);
  const infoBuf: Record<string, Float64Array> = {};
  const stepActs = new Float64Array(N * aDim), stepLogp = new Float64Array(N);
  const fitAcc = new Float64Array(N), lenAcc = new Float64Array(N);
  const mb: Minibatch = {
    size: mbSize, obs: new Float32Array(mbSize * d), actions: new Float32Array(mbSize * k), oldLogp: new Float32Array(mbSize),
    adv: new Float32Array(mbSize), returns: new Float32Array(mbSize), oldValue: new Float32Array(mbSize),
  };
  const perm = new Int32Array(B);
  const clip = (j: number, v: number) => (continuous ? Math.max(space.low[j]!, Math.min(space.high[j]!, v)) : v);

  const result: Omit<TrainResult, "final" | "bestCheckpoint" | "steps" | "wallMs" | "timing" | "policy"> = { components: {}, episodeLength: [], fitnessCurve: [] };
  let windowComp: Record<string, { sum: number; n: number; min: number; max: number }> = {};
  let windowLens: number[] = [];
  let theta = adam.read();
  let obs = env.reset(req.seed);
  let lastEval: number[] = [];
  let steps = 0;
  const timing = { rolloutMs: 0, rewardMs: 0, updateMs: 0, evalMs: 0, updates: 0 };
  let tMark = performance.now();
  const lap = (key: "rolloutMs" | "rewardMs" | "updateMs" | "evalMs") => {
    const now = performance.now();
    timing[key] += now - tMark;
    tMark = now;
  };

  try {
    for (let it = 0; it < numIterations; it++) {
      if (signal?.aborted) throw abortError(signal);
      const lr = lrAt(it, numIterations, cfg.learningRate, cfg.annealLr);
      const epF: number[] = [], epLen: number[] = [];

      // ---- rollout
      tMark = performance.now();
      for (let t = 0; t < T; t++) {
        const row = t * N;
        rawObs.set(obs, row * d);
        if (norm) norm.update(obs, N);
        const nObs = norm ? norm.apply(obs) : obs;
        obsBuf.set(nObs, row * d);
        const out = forward(layout, theta, nObs, N, true);
        sampleActions(layout, theta, out.head, N, rng, stepActs, stepLogp);
        actBuf.set(stepActs, row * aDim);
        logpBuf.set(stepLogp, row);
        valBuf.set(out.value!, row);
        for (let j = 0; j < N * aDim; j++) rewAct[row * aDim + j] = clip(j % aDim, stepActs[j]!);
        const b = env.step(continuous ? stepActs.slice() : Int32Array.from(stepActs));
        nextObsBuf.set(b.nextObs, row * d);
        for (const [key, v] of Object.entries(b.info)) (infoBuf[key] ??= new Float64Array(B)).set(v, row);
        for (let e = 0; e < N; e++) {
          const i = row + e;
          doneBuf[i] = b.terminated[e] || b.truncated[e] ? 1 : 0;
          bootBuf[i] = 0;
          fitAcc[e]! += b.fitness[e]!;
          lenAcc[e]!++;
          if (doneBuf[i]) {
            epF.push(fitAcc[e]!);
            epLen.push(lenAcc[e]!);
            fitAcc[e] = 0;
            lenAcc[e] = 0;
            if (b.truncated[e] && !b.terminated[e]) {
              const next = b.nextObs.slice(e * d, (e + 1) * d);
              bootBuf[i] = cfg.gamma * valueOf(layout, theta, norm ? norm.apply(next) : next, 1)[0]!;
            }
          }
        }
        obs = b.obs;
      }
      steps += B;
      const nextValue = valueOf(layout, theta, norm ? norm.apply(obs) : obs, N);

      lap("rolloutMs");
      // ---- reward: one call for the whole rollout
      const out = evaluateChunked(reward, { n: B, obs: rawObs, action: rewAct, nextObs: nextObsBuf, info: infoBuf }, d, aDim);
      const rewards = Float64Array.from(out.total);
      if (scaler) scaler.apply(rewards, doneBuf, T);
      for (let i = 0; i < B; i++) rewards[i]! += bootBuf[i]!;
      const { advantages, returns } = gae({ rewards, values: valBuf, dones: doneBuf, nextValue, numSteps: T, numEnvs: N, gamma: cfg.gamma, lambda: cfg.gaeLambda });

      lap("rewardMs");
      // ---- update
      for (let i = 0; i < B; i++) perm[i] = i;
      for (let epoch = 0; epoch < cfg.updateEpochs; epoch++) {
        for (let i = B - 1; i > 0; i--) { const j = rng.int(i + 1); const s = perm[i]!; perm[i] = perm[j]!; perm[j] = s; }
        for (let m = 0; m < numMb; m++) {
          const advMb = new Float64Array(mbSize);
          for (let r = 0; r < mbSize; r++) advMb[r] = advantages[perm[m * mbSize + r]!]!;
          const advN = cfg.normAdv ? normalizeAdvantages(advMb) : advMb;
          mb.actions.fill(0);
          for (let r = 0; r < mbSize; r++) {
            const i = perm[m * mbSize + r]!;
            mb.obs.set(obsBuf.subarray(i * d, (i + 1) * d), r * d);
            if (continuous) for (let j = 0; j < k; j++) mb.actions[r * k + j] = actBuf[i * k + j]!;
            else mb.actions[r * k + actBuf[i]!] = 1;
            mb.oldLogp[r] = logpBuf[i]!;
            mb.adv[r] = advN[r]!;
            mb.returns[r] = returns[i]!;
            mb.oldValue[r] = valBuf[i]!;
          }
          adam.step(mb, lr);
          timing.updates++;
        }
      }
      theta = adam.read();
      lap("updateMs");
      if (!theta.every(Number.isFinite))
        throw new TrainingDivergedError(`reward: training diverged at step ${steps} (policy weights became NaN or infinite); keep reward terms bounded (e.g. |r| ≤ 100 per step)`);

      // ---- feedback
      const comps: Record<string, ComponentStats> = {};
      for (const [key, v] of Object.entries(out.components ?? {})) {
        const s = stats(Float64Array.from(v));
        comps[key] = s;
        const w = (windowComp[key] ??= { sum: 0, n: 0, min: Infinity, max: -Infinity });
        w.sum += s.mean; w.n++; w.min = Math.min(w.min, s.min); w.max = Math.max(w.max, s.max);
      }
      windowLens.push(...epLen);
      req.onProgress?.({ iteration: it, steps, fitness: epF.length ? mean(epF) : null, episodeLength: epLen.length ? mean(epLen) : null, components: comps });

      if (checkpoints.has(it)) {
        tMark = performance.now();
        lastEval = evaluateGreedy(task, instance, layout, theta, norm, req.evalSeeds);
        lap("evalMs");
        result.fitnessCurve.push({ step: steps, fitness: mean(lastEval) });
        for (const [key, w] of Object.entries(windowComp)) (result.components[key] ??= []).push({ step: steps, mean: w.sum / w.n, min: w.min, max: w.max });
        if (windowLens.length) result.episodeLength.push({ step: steps, mean: mean(windowLens) });
        windowComp = {};
        windowLens = [];
      }
      // Let a pending abort (timer, parent message) reach the signal between iterations.
      await new Promise<void>((r) => setImmediate(r));
    }
  } finally {
    adam.dispose();
  }

  const best = result.fitnessCurve.reduce((a, b) => (b.fitness > a.fitness ? b : a));
  return {
    final: { fitness: mean(lastEval), perSeed: lastEval },
    bestCheckpoint: { fitness: best.fitness, step: best.step },
    ...result,
    steps,
    wallMs: performance.now() - t0,
    timing,
    policy: serializePolicy(layout, theta, norm),
  };
};
