/**
 * The PPO actor-critic: 2 × hidden tanh MLPs (separate for policy and value, or one shared trunk with two
 * heads), a categorical head for discrete actions and a diagonal Gaussian with state-independent log-std for
 * continuous ones. All parameters live in one flat Float32 vector θ (the layout below); the network itself, for
 * rollouts, updates, evaluations and loaded policies alike, is actor-critic.ts.
 */
import type { ActionSpace } from "../task.ts";
import { InvariantError } from "../../../src/errors.ts";
import { ActorCritic } from "./actor-critic.ts";
import { RunningNorm } from "./normalisers.ts";
import type { FastRng as Rng } from "../../../src/util/rng.ts";

interface ParamSpec {
  name: string;
  shape: readonly number[];
  offset: number;
  size: number;
  /** Orthogonal-init gain (CleanRL layer_init), 0 for biases and log-std (initialised to 0). */
  gain: number;
}

export interface PolicyShape {
  obsDim: number;
  action: ActionSpace;
  hidden: number;
  /** One trunk for policy and value (two heads) instead of two separate MLPs. */
  shared: boolean;
}

export interface PolicyLayout extends PolicyShape {
  params: ParamSpec[];
  size: number;
  /** Width of the policy head: n logits (discrete) or dim means (continuous). */
  outDim: number;
}

export const policyLayout = (s: PolicyShape): PolicyLayout => {
  const outDim = s.action.kind === "discrete" ? s.action.n : s.action.dim;
  const h = s.hidden;
  const list: Array<[string, number[], number]> = [
    ["pi.w1", [s.obsDim, h], Math.SQRT2],
    ["pi.b1", [h], 0],
    ["pi.w2", [h, h], Math.SQRT2],
    ["pi.b2", [h], 0],
    ["pi.w3", [h, outDim], 0.01],
    ["pi.b3", [outDim], 0],
  ];
  if (!s.shared) list.push(["v.w1", [s.obsDim, h], Math.SQRT2], ["v.b1", [h], 0], ["v.w2", [h, h], Math.SQRT2], ["v.b2", [h], 0]);
  list.push(["v.w3", [h, 1], 1], ["v.b3", [1], 0]);
  if (s.action.kind === "continuous") list.push(["logStd", [outDim], 0]);
  let offset = 0;
  const params = list.map(([name, shape, gain]) => {
    const size = shape.reduce((a, b) => a * b, 1);
    const p = { name, shape, offset, size, gain };
    offset += size;
    return p;
  });
  return { ...s, params, size: offset, outDim };
};

const byName = new WeakMap<PolicyLayout, Map<string, ParamSpec>>();

const param = (l: PolicyLayout, name: string): ParamSpec => {
  let m = byName.get(l);
  if (!m) byName.set(l, (m = new Map(l.params.map((q) => [q.name, q]))));
  const p = m.get(name);
  if (!p) throw new InvariantError(`policy layout: no parameter ${name} (have ${l.params.map((q) => q.name).join(", ")})`);
  return p;
};

/** CleanRL's init: orthogonal weights with the layer's gain, zero biases, log-std 0. */
export const initParams = (l: PolicyLayout, rng: Rng): Float32Array => {
  const theta = new Float32Array(l.size);
  for (const p of l.params) {
    if (p.gain === 0) continue;
    const [rows, cols] = p.shape as [number, number];
    theta.set(orthogonal(rows, cols, p.gain, rng), p.offset);
  }
  return theta;
};

/** A rows × cols matrix (row-major) with orthonormal rows or columns, whichever are fewer, times gain. */
const orthogonal = (rows: number, cols: number, gain: number, rng: Rng): Float64Array => {
  const k = Math.min(rows, cols),
    n = Math.max(rows, cols);
  // k orthonormal vectors of length n by modified Gram–Schmidt on Gaussian vectors (QR with sign(diag R) > 0).
  const q = new Float64Array(k * n);
  for (let i = 0; i < k; i++) {
    const v = q.subarray(i * n, (i + 1) * n);
    for (;;) {
      for (let j = 0; j < n; j++) v[j] = rng.normal();
      for (let p = 0; p < i; p++) {
        const u = q.subarray(p * n, (p + 1) * n);
        let dot = 0;
        for (let j = 0; j < n; j++) dot += u[j]! * v[j]!;
        for (let j = 0; j < n; j++) v[j]! -= dot * u[j]!;
      }
      let norm = 0;
      for (let j = 0; j < n; j++) norm += v[j]! * v[j]!;
      norm = Math.sqrt(norm);
      if (norm > 1e-6) {
        for (let j = 0; j < n; j++) v[j]! /= norm;
        break;
      }
    }
  }
  const out = new Float64Array(rows * cols);
  for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) out[r * cols + c] = gain * (rows <= cols ? q[r * n + c]! : q[c * n + r]!);
  return out;
};

const LOG_2PI = Math.log(2 * Math.PI);

/**
 * Sample actions for a batch from the head (categorical or Gaussian) with rng; writes the actions (index or
 * B × dim values, unclipped: the env clips) and their log-probabilities.
 */
export const sampleActions = (
  l: PolicyLayout,
  theta: Float32Array,
  head: Float64Array,
  batch: number,
  rng: Rng,
  actions: Float64Array,
  logp: Float64Array,
): void => {
  const k = l.outDim;
  if (l.action.kind === "discrete") {
    for (let r = 0; r < batch; r++) {
      let max = -Infinity;
      for (let j = 0; j < k; j++) max = Math.max(max, head[r * k + j]!);
      let z = 0;
      for (let j = 0; j < k; j++) z += Math.exp(head[r * k + j]! - max);
      const u = rng.next() * z;
      let acc = 0,
        a = k - 1;
      for (let j = 0; j < k; j++) {
        acc += Math.exp(head[r * k + j]! - max);
        if (u < acc) {
          a = j;
          break;
        }
      }
      actions[r] = a;
      logp[r] = head[r * k + a]! - max - Math.log(z);
    }
    return;
  }
  const ls = param(l, "logStd");
  for (let r = 0; r < batch; r++) {
    let lp = 0;
    for (let j = 0; j < k; j++) {
      const logStd = theta[ls.offset + j]!;
      const eps = rng.normal();
      actions[r * k + j] = head[r * k + j]! + Math.exp(logStd) * eps;
      lp += -0.5 * eps * eps - logStd - 0.5 * LOG_2PI;
    }
    logp[r] = lp;
  }
};

/** Deterministic actions: argmax of the logits, or the Gaussian mean. */
export const greedyActions = (l: PolicyLayout, head: Float64Array, batch: number): Int32Array | Float64Array => {
  if (l.action.kind === "continuous") return head;
  const k = l.outDim;
  const out = new Int32Array(batch);
  for (let r = 0; r < batch; r++) {
    let best = 0;
    for (let j = 1; j < k; j++) if (head[r * k + j]! > head[r * k + best]!) best = j;
    out[r] = best;
  }
  return out;
};

/** A trained policy as JSON: the layout's shape, obs-normalisation statistics and θ as base64 float32 (little-endian). */
export interface SerializedPolicy {
  format: "hexa-ppo-mlp";
  version: 1;
  obsDim: number;
  action: ActionSpace;
  hidden: number;
  shared: boolean;
  obsNorm: { mean: number[]; var: number[] } | null;
  params: string;
}

export const serializePolicy = (l: PolicyLayout, theta: Float32Array, norm: RunningNorm | null): SerializedPolicy => ({
  format: "hexa-ppo-mlp",
  version: 1,
  obsDim: l.obsDim,
  action: l.action,
  hidden: l.hidden,
  shared: l.shared,
  obsNorm: norm ? { mean: [...norm.mean], var: [...norm.var] } : null,
  params: Buffer.from(theta.buffer, theta.byteOffset, theta.byteLength).toString("base64"),
});

/** A loaded policy: greedy actions for a batch of raw observations. */
export interface LoadedPolicy {
  layout: PolicyLayout;
  theta: Float32Array;
  norm: RunningNorm | null;
  act(obs: Float64Array, batch: number): Int32Array | Float64Array;
}

export const loadPolicy = (p: SerializedPolicy): LoadedPolicy => {
  if (p.format !== "hexa-ppo-mlp" || p.version !== 1) throw new InvariantError(`policy: unknown format ${p.format} v${p.version}; expected hexa-ppo-mlp v1`);
  const layout = policyLayout(p);
  const bytes = Buffer.from(p.params, "base64");
  if (bytes.byteLength !== layout.size * 4) throw new InvariantError(`policy: ${bytes.byteLength / 4} parameters, layout needs ${layout.size}`);
  const theta = new Float32Array(layout.size);
  new Uint8Array(theta.buffer).set(bytes);
  let norm: RunningNorm | null = null;
  if (p.obsNorm) {
    norm = new RunningNorm(p.obsDim);
    norm.mean.set(p.obsNorm.mean);
    norm.var.set(p.obsNorm.var);
  }
  let net = new ActorCritic(layout, 1);
  net.load(theta);
  const act = (obs: Float64Array, batch: number) => {
    if (batch > net.capacity) {
      net = new ActorCritic(layout, batch);
      net.load(theta);
    }
    net.forward(norm ? norm.apply(obs) : obs, batch, "head");
    return greedyActions(layout, net.head.slice(0, batch * layout.outDim), batch);
  };
  return { layout, theta, norm, act };
};
