/**
 * The running normalisers of observations and rewards (gym's NormalizeObservation and NormalizeReward, as
 * CleanRL's continuous-action script wraps its envs). TrainerOptions in ppo.ts says when each is on; the
 * observation statistics travel with a saved policy (policy.ts).
 */

/** Running mean and variance of observations (gym's NormalizeObservation: Chan's parallel update, clip ±10). */
export class RunningNorm {
  mean: Float64Array;
  var: Float64Array;
  count = 1e-4;
  constructor(readonly dim: number) {
    this.mean = new Float64Array(dim);
    this.var = new Float64Array(dim).fill(1);
  }
  update(x: Float64Array, batch: number): void {
    const d = this.dim;
    for (let j = 0; j < d; j++) {
      let m = 0;
      for (let r = 0; r < batch; r++) m += x[r * d + j]!;
      m /= batch;
      let v = 0;
      for (let r = 0; r < batch; r++) v += (x[r * d + j]! - m) ** 2;
      v /= batch;
      const delta = m - this.mean[j]!,
        tot = this.count + batch;
      const m2 = this.var[j]! * this.count + v * batch + (delta * delta * this.count * batch) / tot;
      this.mean[j]! += (delta * batch) / tot;
      this.var[j] = m2 / tot;
    }
    this.count += batch;
  }
  apply(x: Float64Array, out: Float64Array = new Float64Array(x.length)): Float64Array {
    const d = this.dim;
    for (let i = 0; i < x.length; i++) {
      const j = i % d;
      out[i] = Math.max(-10, Math.min(10, (x[i]! - this.mean[j]!) / Math.sqrt(this.var[j]! + 1e-8)));
    }
    return out;
  }
}

/**
 * Gymnasium's NormalizeReward (0.29 `normalize.py`, ≥ 1.0 `stateful_reward.py`): divide by the running std of
 * the discounted return, clip ±10. The return follows Gymnasium's rule, ret ← ret · γ · (1 − terminated) + r:
 * a termination restarts it at that step's reward and a truncation does not restart it
 * (docs/spec/reward-search.md, "Deviations from the reference code").
 */
export class RewardScaler {
  private readonly ret: Float64Array;
  private mean = 0;
  private var = 1;
  private count = 1e-4;
  constructor(
    numEnvs: number,
    private readonly gamma: number,
  ) {
    this.ret = new Float64Array(numEnvs);
  }
  /** The discounted return of each env after the last step applied. */
  get returns(): readonly number[] {
    return [...this.ret];
  }
  /** Scale a T × N block in place (row t·N + e), in time order; `terminated` flags the steps that ended by termination. */
  apply(r: Float64Array, terminated: Uint8Array, numSteps: number): void {
    const N = this.ret.length;
    for (let t = 0; t < numSteps; t++) {
      let m = 0;
      for (let e = 0; e < N; e++) {
        const i = t * N + e;
        this.ret[e] = this.ret[e]! * this.gamma * (terminated[i] ? 0 : 1) + r[i]!;
        m += this.ret[e]!;
      }
      m /= N;
      let v = 0;
      for (let e = 0; e < N; e++) v += (this.ret[e]! - m) ** 2;
      v /= N;
      const delta = m - this.mean,
        tot = this.count + N;
      this.var = (this.var * this.count + v * N + (delta * delta * this.count * N) / tot) / tot;
      this.mean += (delta * N) / tot;
      this.count = tot;
      const sd = Math.sqrt(this.var + 1e-8);
      for (let e = 0; e < N; e++) {
        const i = t * N + e;
        r[i] = Math.max(-10, Math.min(10, r[i]! / sd));
      }
    }
  }
}
