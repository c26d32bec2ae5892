/**
 * ∂loss/∂θ of CleanRL's PPO loss on one minibatch, as one call over preallocated typed arrays: the actor-critic's
 * forward pass (actor-critic.ts), the clipped surrogate, the (clipped) value loss and the entropy bonus, and the
 * backward pass into a flat float64 gradient in θ's layout. Where a max or a clip ties, the gradient follows
 * the rules the tfjs autodiff reference of the tests uses (max(a, b) sends it to a when a ≥ b; clip passes it on
 * the closed interval).
 *
 * Alongside, at no extra cost, the loss diagnostics CleanRL logs (losses/*) of the minibatch before its update.
 */
import type { PpoConfig } from "../task.ts";
import { ActorCritic } from "./actor-critic.ts";
import type { PolicyLayout } from "./policy.ts";

export const LOG_2PI = Math.log(2 * Math.PI);

export type ObjectiveConfig = Pick<PpoConfig, "clipCoef" | "entCoef" | "vfCoef"> & { clipValueLoss: boolean };

/** One minibatch, row r of each field for sample r; float64 as the rollout stored it. */
export interface Minibatch {
  size: number;
  /** size × obsDim normalised observations. */
  obs: Float64Array;
  /** size × dim actions (continuous, before the env's clip) or size action indices (discrete). */
  actions: Float64Array;
  oldLogp: Float64Array;
  adv: Float64Array;
  returns: Float64Array;
  oldValue: Float64Array;
}

/** CleanRL's losses/* of one minibatch, before its update. */
export interface MinibatchLosses {
  /** Clipped surrogate, mean over the minibatch (losses/policy_loss). */
  policyLoss: number;
  /** ½ · mean of the (clipped) squared error (losses/value_loss). */
  valueLoss: number;
  /** Mean entropy of the policy (losses/entropy). */
  entropy: number;
  /** mean((ratio − 1) − log ratio) (losses/approx_kl). */
  approxKl: number;
  /** Fraction of the minibatch whose ratio lies outside [1 − clip, 1 + clip] (losses/clipfrac). */
  clipFrac: number;
}

/** The loss the gradient is of: policyLoss + vfCoef · valueLoss − entCoef · entropy. */
export const totalLoss = (d: MinibatchLosses, c: ObjectiveConfig): number => d.policyLoss + c.vfCoef * d.valueLoss - c.entCoef * d.entropy;

export class PpoGradient {
  /** ∂loss/∂θ of the last `compute`. */
  readonly grad: Float64Array;
  /** The losses of the last `compute` (one object, overwritten by each call). */
  readonly losses: MinibatchLosses = { policyLoss: 0, valueLoss: 0, entropy: 0, approxKl: 0, clipFrac: 0 };
  readonly net: ActorCritic;
  private readonly dHead: Float64Array;
  private readonly dValue: Float64Array;
  private readonly invStd: Float64Array;
  private readonly logStdOff: number;

  constructor(
    readonly layout: PolicyLayout,
    readonly capacity: number,
    private readonly cfg: ObjectiveConfig,
  ) {
    this.net = new ActorCritic(layout, capacity);
    this.grad = new Float64Array(layout.size);
    this.dHead = new Float64Array(capacity * layout.outDim);
    this.dValue = new Float64Array(capacity);
    this.invStd = new Float64Array(layout.outDim);
    this.logStdOff = layout.params.find((p) => p.name === "logStd")?.offset ?? -1;
  }

  /** The gradient at θ on the minibatch, into `grad`; returns `losses`. */
  compute(theta: Float32Array | Float64Array, mb: Minibatch): MinibatchLosses {
    const B = mb.size;
    this.net.load(theta);
    this.net.forward(mb.obs, B, "both");
    const s = this.losses;
    s.policyLoss = s.approxKl = s.clipFrac = 0;
    if (this.layout.action.kind === "discrete") this.discreteHead(mb);
    else this.gaussianHead(mb);
    this.valueHead(mb);
    this.net.backward(this.dHead, this.dValue, B, this.grad);
    if (this.logStdOff >= 0) {
      // The Gaussian entropy's gradient is 1 per log-std; gaussianHead wrote the surrogate's part.
      for (let j = 0; j < this.layout.outDim; j++) this.grad[this.logStdOff + j]! -= this.cfg.entCoef;
    }
    s.policyLoss /= B;
    s.approxKl /= B;
    s.clipFrac /= B;
    return s;
  }

  /**
   * ∂/∂newLogp of the clipped surrogate mean(max(−A·ratio, −A·clip(ratio))) for one row, adding the row's
   * policy loss, approx_kl and clip count to `losses` (as sums; compute divides).
   */
  private surrogate(newLogp: number, oldLogp: number, adv: number, invB: number): number {
    const c = this.cfg.clipCoef,
      s = this.losses;
    const logRatio = newLogp - oldLogp;
    const ratio = Math.exp(logRatio);
    const unclipped = -adv * ratio;
    const clippedRatio = Math.max(1 - c, Math.min(1 + c, ratio));
    const clipped = -adv * clippedRatio;
    s.policyLoss += Math.max(unclipped, clipped);
    s.approxKl += ratio - 1 - logRatio;
    if (ratio !== clippedRatio) s.clipFrac++;
    return unclipped >= clipped ? unclipped * invB : 0;
  }

  /** Diagonal Gaussian with state-independent log-std: the head's and the log-std's gradients. */
  private gaussianHead(mb: Minibatch): void {
    const B = mb.size,
      k = this.layout.outDim,
      invB = 1 / B;
    const { dHead, invStd, grad } = this;
    const w = this.net.w,
      ls = this.logStdOff,
      head = this.net.head;
    let sumLogStd = 0;
    for (let j = 0; j < k; j++) {
      sumLogStd += w[ls + j]!;
      invStd[j] = Math.exp(-w[ls + j]!);
      grad[ls + j] = 0;
    }
    const logpConst = sumLogStd + 0.5 * k * LOG_2PI;
    for (let r = 0; r < B; r++) {
      const o = r * k;
      let sq = 0;
      for (let j = 0; j < k; j++) {
        const z = (mb.actions[o + j]! - head[o + j]!) * invStd[j]!;
        dHead[o + j] = z; // z for now; scaled by the surrogate's gradient below
        sq += z * z;
      }
      const dnl = this.surrogate(-0.5 * sq - logpConst, mb.oldLogp[r]!, mb.adv[r]!, invB);
      for (let j = 0; j < k; j++) {
        const z = dHead[o + j]!;
        dHead[o + j] = dnl * z * invStd[j]!;
        grad[ls + j]! += dnl * (z * z - 1);
      }
    }
    this.losses.entropy = sumLogStd + k * 0.5 * (1 + LOG_2PI);
  }

  /** Categorical over logits: the head's gradient of the surrogate and of −entCoef · entropy. */
  private discreteHead(mb: Minibatch): void {
    const B = mb.size,
      k = this.layout.outDim,
      invB = 1 / B,
      entScale = this.cfg.entCoef * invB;
    const { dHead } = this;
    const head = this.net.head;
    let entropySum = 0;
    for (let r = 0; r < B; r++) {
      const o = r * k;
      let max = -Infinity;
      for (let j = 0; j < k; j++) max = Math.max(max, head[o + j]!);
      let z = 0;
      for (let j = 0; j < k; j++) z += Math.exp(head[o + j]! - max);
      const logZ = Math.log(z);
      let h = 0;
      for (let j = 0; j < k; j++) {
        const logp = head[o + j]! - max - logZ;
        dHead[o + j] = logp; // log p for now
        h -= Math.exp(logp) * logp;
      }
      entropySum += h;
      const a = mb.actions[r]!;
      const dnl = this.surrogate(dHead[o + a]!, mb.oldLogp[r]!, mb.adv[r]!, invB);
      for (let j = 0; j < k; j++) {
        const logp = dHead[o + j]!,
          p = Math.exp(logp);
        dHead[o + j] = dnl * ((j === a ? 1 : 0) - p) + p * (logp + h) * entScale;
      }
    }
    this.losses.entropy = entropySum * invB;
  }

  /** ∂/∂value of vfCoef · ½ mean(max((v − R)², (clipped v − R)²)) (or of the unclipped loss), and the value loss. */
  private valueHead(mb: Minibatch): void {
    const B = mb.size,
      c = this.cfg.clipCoef,
      scale = this.cfg.vfCoef / B;
    const value = this.net.value;
    let sqSum = 0;
    for (let r = 0; r < B; r++) {
      const v = value[r]!,
        diff = v - mb.returns[r]!;
      let dv = diff,
        sq = diff * diff;
      if (this.cfg.clipValueLoss) {
        const old = mb.oldValue[r]!,
          dOld = v - old;
        const vcDiff = old + Math.max(-c, Math.min(c, dOld)) - mb.returns[r]!;
        const clippedSq = vcDiff * vcDiff;
        if (sq < clippedSq) dv = Math.abs(dOld) <= c ? vcDiff : 0;
        sq = Math.max(sq, clippedSq);
      }
      this.dValue[r] = dv * scale;
      sqSum += sq;
    }
    this.losses.valueLoss = (0.5 * sqSum) / B;
  }
}
