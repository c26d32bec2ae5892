/**
 * The optimiser: θ as one flat tf variable with Adam (β 0.9/0.999, eps 1e-5 as CleanRL) and global-norm
 * clipping on the flat gradient, so an update is a handful of tensor ops on one vector.
 */
import { manualGradient, type MinibatchTensors, type ObjectiveConfig } from "./network.ts";
import type { PolicyLayout } from "./policy.ts";
import { restartTf, tf } from "./tf.ts";

export interface Minibatch {
  size: number;
  obs: Float32Array;
  actions: Float32Array;
  oldLogp: Float32Array;
  adv: Float32Array;
  returns: Float32Array;
  oldValue: Float32Array;
}

/** CleanRL's losses/* of a minibatch before its update (network.ts LossTensors, read). */
export interface Losses {
  policyLoss: number;
  valueLoss: number;
  entropy: number;
  approxKl: number;
}

export interface StepDiagnostics {
  clipFrac: number;
  /** Only when asked for. */
  losses: Losses | null;
}

/** Everything an optimiser carries between steps, in plain arrays: what survives a backend restart (tf.ts restartTf). */
export interface AdamState {
  theta: Float32Array;
  m: Float32Array;
  v: Float32Array;
  t: number;
}

export class FlatAdam {
  readonly theta: tf.Variable<tf.Rank.R1>;
  private readonly m: tf.Variable<tf.Rank.R1>;
  private readonly v: tf.Variable<tf.Rank.R1>;
  private t = 0;
  constructor(
    private readonly layout: PolicyLayout,
    init: Float32Array,
    private readonly cfg: ObjectiveConfig & { maxGradNorm: number },
    resume?: Omit<AdamState, "theta">,
  ) {
    [this.theta, this.m, this.v] = tf.tidy(() => [
      tf.variable(tf.tensor1d(init), true),
      tf.variable(resume ? tf.tensor1d(resume.m) : tf.zeros([init.length]), false),
      tf.variable(resume ? tf.tensor1d(resume.v) : tf.zeros([init.length]), false),
    ]);
    this.t = resume?.t ?? 0;
  }

  /** θ, the moments and the step count as plain arrays; `new FlatAdam(layout, s.theta, cfg, s)` continues bit for bit. */
  save(): AdamState {
    return { theta: this.read().slice(), m: (this.m.dataSync() as Float32Array).slice(), v: (this.v.dataSync() as Float32Array).slice(), t: this.t };
  }

  /** One Adam step on the minibatch's loss; returns its clip fraction, and its losses when `withLosses`. */
  step(mb: Minibatch, lr: number, withLosses = false): StepDiagnostics {
    const { layout: l, cfg } = this;
    const b1 = 0.9,
      b2 = 0.999,
      eps = 1e-5;
    this.t++;
    const bc1 = 1 - b1 ** this.t,
      bc2 = 1 - b2 ** this.t;
    let diag: StepDiagnostics = { clipFrac: 0, losses: null };
    tf.tidy(() => {
      const k = l.action.kind === "discrete" ? l.action.n : l.action.dim;
      const x: MinibatchTensors = {
        obs: tf.tensor2d(mb.obs, [mb.size, l.obsDim]),
        actions: tf.tensor2d(mb.actions, [mb.size, k]),
        oldLogp: tf.tensor1d(mb.oldLogp),
        adv: tf.tensor1d(mb.adv),
        returns: tf.tensor1d(mb.returns),
        oldValue: tf.tensor1d(mb.oldValue),
      };
      const { grad: g, clipFrac, losses } = manualGradient(l, this.theta, x, cfg, withLosses);
      const norm = tf.sqrt(tf.sum(tf.square(g)));
      const scale = tf.minimum(1, tf.div(cfg.maxGradNorm, tf.add(norm, 1e-6)));
      const m1 = tf.add(tf.mul(this.m, b1), tf.mul(g, tf.mul(scale, 1 - b1)));
      const v1 = tf.add(tf.mul(this.v, b2), tf.mul(tf.square(g), tf.mul(tf.square(scale), 1 - b2)));
      const update = tf.div(tf.mul(m1, lr / bc1), tf.add(tf.mul(tf.sqrt(v1), 1 / Math.sqrt(bc2)), eps));
      this.theta.assign(tf.sub(this.theta, update) as tf.Tensor1D);
      this.m.assign(m1 as tf.Tensor1D);
      this.v.assign(v1 as tf.Tensor1D);
      const read = (s: tf.Scalar) => s.dataSync()[0]!;
      diag = {
        clipFrac: read(clipFrac),
        losses: losses && {
          policyLoss: read(losses.policyLoss),
          valueLoss: read(losses.valueLoss),
          entropy: read(losses.entropy),
          approxKl: read(losses.approxKl),
        },
      };
    });
    return diag;
  }

  /** This optimiser moved to a fresh wasm backend (tf.ts restartTf): saved, disposed, restored; it continues bit for bit. */
  async onFreshBackend(): Promise<FlatAdam> {
    const saved = this.save();
    this.dispose();
    await restartTf();
    return new FlatAdam(this.layout, saved.theta, this.cfg, saved);
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
