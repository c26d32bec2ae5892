/**
 * The arithmetic of one iteration's returns, in float64 on the rollout's typed arrays: GAE (advantages and
 * returns), CleanRL's per-minibatch advantage normalisation, and the explained variance it logs.
 */

/**
 * Generalised advantage estimation over a T × N rollout (row t·N + e). done[t·N+e] = 1 where transition t ended
 * env e's episode (terminated or truncated: any truncation bootstrap is already in the reward); nextValue is V
 * of the observation after the last step.
 */
export const gae = (a: {
  rewards: ArrayLike<number>;
  values: ArrayLike<number>;
  dones: ArrayLike<number>;
  nextValue: ArrayLike<number>;
  numSteps: number;
  numEnvs: number;
  gamma: number;
  lambda: number;
}): { advantages: Float64Array; returns: Float64Array } => {
  const { numSteps: T, numEnvs: N, gamma, lambda } = a;
  const adv = new Float64Array(T * N),
    ret = new Float64Array(T * N);
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

/** (x − mean) / (std + 1e-8) with the unbiased std (torch's .std()), as CleanRL normalises each minibatch; into `out`. */
export const normalizeAdvantages = (x: ArrayLike<number>, out: Float64Array = new Float64Array(x.length)): Float64Array => {
  const n = x.length;
  let m = 0;
  for (let i = 0; i < n; i++) m += x[i]!;
  m /= n;
  let v = 0;
  for (let i = 0; i < n; i++) v += (x[i]! - m) ** 2;
  const std = n > 1 ? Math.sqrt(v / (n - 1)) : 0;
  for (let i = 0; i < n; i++) out[i] = (x[i]! - m) / (std + 1e-8);
  return out;
};

/** CleanRL's explained_variance: 1 − Var(returns − values) / Var(returns) (population variances); null when Var(returns) = 0. */
export const explainedVariance = (values: ArrayLike<number>, returns: ArrayLike<number>): number | null => {
  const variance = (f: (i: number) => number) => {
    let m = 0;
    for (let i = 0; i < returns.length; i++) m += f(i);
    m /= returns.length;
    let v = 0;
    for (let i = 0; i < returns.length; i++) v += (f(i) - m) ** 2;
    return v / returns.length;
  };
  const varY = variance((i) => returns[i]!);
  return varY === 0 ? null : 1 - variance((i) => returns[i]! - values[i]!) / varY;
};
