/**
 * The optimiser: Adam (β 0.9/0.999, eps 1e-5 as CleanRL, torch's bias-corrected form) with global-norm clipping
 * of the flat gradient, over θ as one Float32Array (the policy as rollouts run it and as it is saved) with its
 * moments in float64. One `step` per minibatch: the gradient (ppo-gradient.ts), then the norm and the update in
 * the wasm kernels (wasm/kernels.ts), over θ, the moments and the gradient held in their memory.
 */
import { PpoGradient, type Minibatch, type MinibatchLosses, type ObjectiveConfig } from "./ppo-gradient.ts";
import type { PolicyLayout } from "./policy.ts";
import { KernelMemory } from "./wasm/kernels.ts";

const BETA1 = 0.9,
  BETA2 = 0.999;

/** Everything an optimiser carries between steps: `new FlatAdam(layout, s.theta, cfg, size, s)` continues bit for bit. */
export interface AdamState {
  theta: Float32Array;
  m: Float64Array;
  v: Float64Array;
  t: number;
}

/** Adam's moments and θ in one kernel memory (wasm/kernels.ts), with room for the step's gradient. */
export class AdamBuffers {
  readonly theta: Float32Array;
  readonly g: Float64Array;
  readonly m: Float64Array;
  readonly v: Float64Array;
  private readonly mem: KernelMemory;

  constructor(size: number) {
    this.mem = new KernelMemory([Math.ceil(size / 2), size, size, size]);
    const [theta, g, m, v] = this.mem.views as [Float64Array, Float64Array, Float64Array, Float64Array];
    [this.theta, this.g, this.m, this.v] = [this.mem.float32(theta, size), g, m, v];
  }

  /**
   * θ ← θ − lr/(1 − β1ᵗ) · m / (√v / √(1 − β2ᵗ) + eps) with the moments of g · min(1, maxNorm / (‖g‖ + 1e-6)),
   * in place; t is the step's number (1 for the first). ‖g‖² is summed in index order.
   */
  update(t: number, lr: number, maxNorm: number): void {
    const scale = Math.min(1, maxNorm / (Math.sqrt(this.mem.sumSquares(this.g)) + 1e-6));
    this.mem.adamStep(this.theta, this.g, this.m, this.v, scale, lr / (1 - BETA1 ** t), 1 / Math.sqrt(1 - BETA2 ** t));
  }
}

export class FlatAdam {
  /** θ as rollouts run it, updated in place by each step. */
  readonly theta: Float32Array;
  private readonly buf: AdamBuffers;
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
    this.buf = new AdamBuffers(layout.size);
    this.theta = this.buf.theta;
    this.theta.set(init);
    if (resume) {
      this.buf.m.set(resume.m);
      this.buf.v.set(resume.v);
    }
    this.t = resume?.t ?? 0;
    this.gradient = new PpoGradient(layout, minibatchSize, cfg);
  }

  save(): AdamState {
    return { theta: this.theta.slice(), m: this.buf.m.slice(), v: this.buf.v.slice(), t: this.t };
  }

  /** One Adam step on the minibatch's loss; returns its losses before the step (one object, overwritten by the next step). */
  step(mb: Minibatch, lr: number): MinibatchLosses {
    if (mb.size !== this.gradient.capacity)
      throw new RangeError(`adam: a minibatch of ${mb.size} rows; this optimiser's workspaces hold ${this.gradient.capacity}`);
    const losses = this.gradient.compute(this.theta, mb);
    this.t++;
    this.buf.g.set(this.gradient.grad);
    this.buf.update(this.t, lr, this.cfg.maxGradNorm);
    return losses;
  }
}
