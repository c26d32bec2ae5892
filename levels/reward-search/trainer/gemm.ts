/**
 * The dense linear algebra of the PPO kernels (actor-critic.ts), as plain loops over Float64Arrays: one matrix
 * product whose two operands are both read along rows, a transpose, and row sums. Every output is a sum over
 * k = 0, 1, … in order, started from its bias (or 0), so a result depends only on its inputs, never on the
 * blocking, the batch it sits in or the machine (docs/spec/reward-search.md §6, kernels).
 */

/**
 * C[m·N + n] = bias[n] + Σ_k A[m·K + k] · Bt[n·K + k] for m < M, n < N (A is M × K, Bt is N × K, C is M × N, all
 * row-major at their offsets): C = A · Btᵀ. Two rows of A against two rows of Bt at a time, so each load feeds
 * two multiply-adds.
 */
export const gemmABt = (
  A: Float64Array,
  aOff: number,
  Bt: Float64Array,
  bOff: number,
  C: Float64Array,
  cOff: number,
  M: number,
  N: number,
  K: number,
  bias: Float64Array | null,
  biasOff: number,
): void => {
  let m = 0;
  for (; m + 1 < M; m += 2) {
    const a0 = aOff + m * K,
      a1 = a0 + K,
      c0 = cOff + m * N,
      c1 = c0 + N;
    let n = 0;
    for (; n + 1 < N; n += 2) {
      const b0 = bOff + n * K,
        b1 = b0 + K;
      let s00 = bias === null ? 0 : bias[biasOff + n]!,
        s01 = bias === null ? 0 : bias[biasOff + n + 1]!;
      let s10 = s00,
        s11 = s01;
      for (let k = 0; k < K; k++) {
        const x0 = A[a0 + k]!,
          x1 = A[a1 + k]!,
          y0 = Bt[b0 + k]!,
          y1 = Bt[b1 + k]!;
        s00 += x0 * y0;
        s01 += x0 * y1;
        s10 += x1 * y0;
        s11 += x1 * y1;
      }
      C[c0 + n] = s00;
      C[c0 + n + 1] = s01;
      C[c1 + n] = s10;
      C[c1 + n + 1] = s11;
    }
    if (n < N) {
      const b0 = bOff + n * K;
      let s0 = bias === null ? 0 : bias[biasOff + n]!;
      let s1 = s0;
      for (let k = 0; k < K; k++) {
        const y = Bt[b0 + k]!;
        s0 += A[a0 + k]! * y;
        s1 += A[a1 + k]! * y;
      }
      C[c0 + n] = s0;
      C[c1 + n] = s1;
    }
  }
  if (m < M) gemvBt(A, aOff + m * K, Bt, bOff, C, cOff + m * N, N, K, bias, biasOff);
};

/**
 * One row: c[n] = bias[n] + Σ_k a[k] · Bt[n·K + k] (gemmABt's last row when M is odd, and a batch of one, the
 * rollout's): four columns at a time, so four sums are in flight.
 */
const gemvBt = (
  A: Float64Array,
  a0: number,
  Bt: Float64Array,
  bOff: number,
  C: Float64Array,
  c0: number,
  N: number,
  K: number,
  bias: Float64Array | null,
  biasOff: number,
) => {
  let n = 0;
  for (; n + 3 < N; n += 4) {
    const b0 = bOff + n * K,
      b1 = b0 + K,
      b2 = b1 + K,
      b3 = b2 + K;
    let s0 = bias === null ? 0 : bias[biasOff + n]!,
      s1 = bias === null ? 0 : bias[biasOff + n + 1]!,
      s2 = bias === null ? 0 : bias[biasOff + n + 2]!,
      s3 = bias === null ? 0 : bias[biasOff + n + 3]!;
    for (let k = 0; k < K; k++) {
      const x = A[a0 + k]!;
      s0 += x * Bt[b0 + k]!;
      s1 += x * Bt[b1 + k]!;
      s2 += x * Bt[b2 + k]!;
      s3 += x * Bt[b3 + k]!;
    }
    C[c0 + n] = s0;
    C[c0 + n + 1] = s1;
    C[c0 + n + 2] = s2;
    C[c0 + n + 3] = s3;
  }
  for (; n < N; n++) {
    const b0 = bOff + n * K;
    let s = bias === null ? 0 : bias[biasOff + n]!;
    for (let k = 0; k < K; k++) s += A[a0 + k]! * Bt[b0 + k]!;
    C[c0 + n] = s;
  }
};

/** dst (cols × rows, at dstOff) = srcᵀ, src rows × cols at srcOff. */
export const transpose = (src: Float64Array, srcOff: number, rows: number, cols: number, dst: Float64Array, dstOff: number): void => {
  for (let r = 0; r < rows; r++) {
    const s = srcOff + r * cols;
    for (let c = 0; c < cols; c++) dst[dstOff + c * rows + r] = src[s + c]!;
  }
};

/** out[outOff + i] = Σ_k X[i·K + k] for i < rows: a bias's gradient from its layer's transposed pre-activation gradient. */
export const rowSums = (X: Float64Array, rows: number, K: number, out: Float64Array, outOff: number): void => {
  for (let i = 0; i < rows; i++) {
    let s = 0;
    const o = i * K;
    for (let k = 0; k < K; k++) s += X[o + k]!;
    out[outOff + i] = s;
  }
};
