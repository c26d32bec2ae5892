/**
 * The optimiser: Adam (β 0.9/0.999, eps 1e-5 as CleanRL, torch's bias-corrected form) with global-norm clipping
 * of the flat gradient, over θ as one Float32Array (the policy as rollouts run it and as it is saved) with its
 * moments in float64. One `step` per minibatch: the gradient (ppo-gradient.ts), the norm, the update, in loops
 * over preallocated arrays.
 */
import { PpoGradient, type Minibatch, type MinibatchLosses, type ObjectiveConfig } from "./ppo-gradient.ts";
import type { PolicyLayout } from "./policy.ts";

const BETA1 = 0.9,
  BETA2 = 0.999,
  EPS = 1e-5;

/** Everything an optimiser carries between steps: `new FlatAdam(layout, s.theta, cfg, size, s)` continues bit for bit. */
export interface AdamState {
  theta: Float32Array;
  m: Float64Array;
  v: Float64Array;
  t: number;
}

/**
 * θ ← θ − lr/(1 − β1ᵗ) · m / (√v / √(1 − β2ᵗ) + eps) with the moments of g · min(1, maxNorm / (‖g‖ + 1e-6)),
 * in place; t is the step's number (1 for the first).
 */
export const adamUpdate = (
  theta: Float32Array | Float64Array,
  g: Float64Array,
  m: Float64Array,
  v: Float64Array,
  t: number,
  lr: number,
  maxNorm: number,
): void => {
  let sq = 0;
  for (let i = 0; i < g.length; i++) sq += g[i]! * g[i]!;
  const scale = Math.min(1, maxNorm / (Math.sqrt(sq) + 1e-6));
  const stepSize = lr / (1 - BETA1 ** t),
    invRootBc2 = 1 / Math.sqrt(1 - BETA2 ** t);
  for (let i = 0; i < g.length; i++) {
    const gi = g[i]! * scale;
    const mi = BETA1 * m[i]! + (1 - BETA1) * gi,
      vi = BETA2 * v[i]! + (1 - BETA2) * gi * gi;
    m[i] = mi;
    v[i] = vi;
    theta[i] = theta[i]! - (stepSize * mi) / (Math.sqrt(vi) * invRootBc2 + EPS);
  }
};

export class FlatAdam {
  readonly theta: Float32Array;
  private readonly m: Float64Array;
  private readonly v: Float64Array;
  private t: number;
  private readonly gradient: PpoGradient;

  /** `minibatchSize`: the rows of every minibatch `step` takes (its workspaces are sized once, here). */
  constructor(
    layout: PolicyLayout,
    init: Float32Array,
    private readonly cfg: ObjectiveConfig & { maxGradNorm: number },
    minibatchSize: number,
    resume?: Omit<AdamState, "theta">,
  ) {
    this.theta = init.slice();
    this.m = resume ? resume.m.slice() : new Float64Array(layout.size);
    this.v = resume ? resume.v.slice() : new Float64Array(layout.size);
    this.t = resume?.t ?? 0;
    this.gradient = new PpoGradient(layout, minibatchSize, cfg);
  }

  save(): AdamState {
    return { theta: this.theta.slice(), m: this.m.slice(), v: this.v.slice(), t: this.t };
  }

  /** One Adam step on the minibatch's loss; returns its losses before the step (one object, overwritten by the next step). */
  step(mb: Minibatch, lr: number): MinibatchLosses {
    if (mb.size !== this.gradient.capacity)
      throw new RangeError(`adam: a minibatch of ${mb.size} rows; this optimiser's workspaces hold ${this.gradient.capacity}`);
    const losses = this.gradient.compute(this.theta, mb);
    this.t++;
    adamUpdate(this.theta, this.gradient.grad, this.m, this.v, this.t, lr, this.cfg.maxGradNorm);
    return losses;
  }
}
