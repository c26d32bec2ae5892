import type { PpoConfig } from "../task.ts";
import type { FastRng as Rng } from "../../../src/util/rng.ts";
import type { FlatAdam } from "./adam.ts";
import { normalizeAdvantages } from "./advantages.ts";
import type { Minibatch, MinibatchLosses } from "./ppo-gradient.ts";
import type { Rollout } from "./rollout.ts";

/** What one update reports for CleanRL's losses/*. */
export interface UpdateLosses {
  /** The last minibatch's losses (before its step); null when the update ran no minibatch. */
  last: MinibatchLosses | null;
  /** clipfrac summed over every minibatch of the update. */
  clipFracSum: number;
  /** Adam steps taken. */
  minibatches: number;
}

/**
 * PPO's update (CleanRL's `for epoch in range(update_epochs)` loop): each epoch a fresh shuffle of the rollout's
 * rows, cut into minibatches of mbSize rows (a remainder of fewer rows is left out), each gathered into
 * buffers allocated once per training and given to one Adam step.
 */
export class PpoUpdate {
  private readonly mb: Minibatch;
  /** A minibatch's advantages before normalisation. */
  private readonly advMb: Float64Array;
  private readonly perm: Int32Array;
  private readonly numMb: number;

  constructor(
    private readonly cfg: Pick<PpoConfig, "updateEpochs" | "normAdv">,
    private readonly rng: Rng,
    private readonly obsDim: number,
    private readonly actionDim: number,
    batch: number,
    mbSize: number,
  ) {
    this.mb = {
      size: mbSize,
      obs: new Float64Array(mbSize * obsDim),
      actions: new Float64Array(mbSize * actionDim),
      oldLogp: new Float64Array(mbSize),
      adv: new Float64Array(mbSize),
      returns: new Float64Array(mbSize),
      oldValue: new Float64Array(mbSize),
    };
    this.advMb = new Float64Array(mbSize);
    this.perm = new Int32Array(batch);
    this.numMb = Math.floor(batch / mbSize);
  }

  /** updateEpochs passes of Adam steps at learning rate lr over the rollout with its advantages and returns. */
  run(adam: FlatAdam, rollout: Rollout, advantages: Float64Array, returns: Float64Array, lr: number): UpdateLosses {
    const { perm, numMb } = this;
    const epochs = this.cfg.updateEpochs;
    for (let i = 0; i < perm.length; i++) perm[i] = i;
    let clipFracSum = 0;
    let last: MinibatchLosses | null = null;
    for (let epoch = 0; epoch < epochs; epoch++) {
      this.shuffle();
      for (let m = 0; m < numMb; m++) {
        this.gather(m, rollout, advantages, returns);
        const diag = adam.step(this.mb, lr);
        clipFracSum += diag.clipFrac;
        // adam.step overwrites its losses object at the next step: the last one is kept as a copy.
        if (epoch === epochs - 1 && m === numMb - 1) last = { ...diag };
      }
    }
    return { last, clipFracSum, minibatches: epochs * numMb };
  }

  /** Fisher–Yates on the row order, from the run's generator. */
  private shuffle(): void {
    const { perm, rng } = this;
    for (let i = perm.length - 1; i > 0; i--) {
      const j = rng.int(i + 1);
      const s = perm[i]!;
      perm[i] = perm[j]!;
      perm[j] = s;
    }
  }

  /** Minibatch m of the current order into the minibatch buffers, its advantages normalised if configured. */
  private gather(m: number, rollout: Rollout, advantages: Float64Array, returns: Float64Array): void {
    const { mb, advMb, perm, obsDim: d, actionDim: aDim } = this;
    const size = mb.size;
    for (let r = 0; r < size; r++) advMb[r] = advantages[perm[m * size + r]!]!;
    if (this.cfg.normAdv) normalizeAdvantages(advMb, mb.adv);
    else mb.adv.set(advMb);
    const { obs, actions, logp, values } = rollout;
    for (let r = 0; r < size; r++) {
      const i = perm[m * size + r]!;
      for (let j = 0; j < d; j++) mb.obs[r * d + j] = obs[i * d + j]!;
      for (let j = 0; j < aDim; j++) mb.actions[r * aDim + j] = actions[i * aDim + j]!;
      mb.oldLogp[r] = logp[i]!;
      mb.returns[r] = returns[i]!;
      mb.oldValue[r] = values[i]!;
    }
  }
}
