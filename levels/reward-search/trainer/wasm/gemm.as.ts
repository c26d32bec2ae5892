// AssemblyScript, compiled by scripts/build.mjs (or on first use, gemm-wasm.ts) with `--enable simd`.
//
// C = bias + A·B over float64, A read through strides (so A or Aᵀ of a row-major matrix), B and C row-major.
// Every output is bias[n] (or 0) plus A[m,k]·B[k,n] for k = 0, 1, … in order, each product rounded and then
// added, as a scalar loop would: SIMD runs over n, never over k, so a result is the same bit for bit whatever
// the tiling, the batch or the machine (docs/spec/reward-search.md §6, kernels). Addresses and strides are bytes.

// @ts-nocheck: AssemblyScript's types (usize, v128, f64x2) are not TypeScript's.

@inline
function tile4x4(a: usize, rs: usize, cs: usize, b: usize, ldb: usize, c: usize, ldc: usize, K: i32, bias: usize, hasBias: bool): void {
  let i0 = f64x2.splat(0);
  let i1 = i0;
  if (hasBias) {
    i0 = v128.load(bias);
    i1 = v128.load(bias, 16);
  }
  let c00 = i0, c01 = i1, c10 = i0, c11 = i1, c20 = i0, c21 = i1, c30 = i0, c31 = i1;
  let ap = a, bp = b;
  const rs2 = rs + rs, rs3 = rs2 + rs;
  for (let k = 0; k < K; k++) {
    const b0 = v128.load(bp), b1 = v128.load(bp, 16);
    const x0 = v128.load64_splat(ap), x1 = v128.load64_splat(ap + rs), x2 = v128.load64_splat(ap + rs2), x3 = v128.load64_splat(ap + rs3);
    c00 = f64x2.add(c00, f64x2.mul(x0, b0));
    c01 = f64x2.add(c01, f64x2.mul(x0, b1));
    c10 = f64x2.add(c10, f64x2.mul(x1, b0));
    c11 = f64x2.add(c11, f64x2.mul(x1, b1));
    c20 = f64x2.add(c20, f64x2.mul(x2, b0));
    c21 = f64x2.add(c21, f64x2.mul(x2, b1));
    c30 = f64x2.add(c30, f64x2.mul(x3, b0));
    c31 = f64x2.add(c31, f64x2.mul(x3, b1));
    ap += cs;
    bp += ldb;
  }
  v128.store(c, c00);
  v128.store(c, c01, 16);
  v128.store(c + ldc, c10);
  v128.store(c + ldc, c11, 16);
  v128.store(c + 2 * ldc, c20);
  v128.store(c + 2 * ldc, c21, 16);
  v128.store(c + 3 * ldc, c30);
  v128.store(c + 3 * ldc, c31, 16);
}

@inline
function tile1x8(a: usize, cs: usize, b: usize, ldb: usize, c: usize, K: i32, bias: usize, hasBias: bool): void {
  let c0 = f64x2.splat(0);
  let c1 = c0, c2 = c0, c3 = c0;
  if (hasBias) {
    c0 = v128.load(bias);
    c1 = v128.load(bias, 16);
    c2 = v128.load(bias, 32);
    c3 = v128.load(bias, 48);
  }
  let ap = a, bp = b;
  for (let k = 0; k < K; k++) {
    const x = v128.load64_splat(ap);
    c0 = f64x2.add(c0, f64x2.mul(x, v128.load(bp)));
    c1 = f64x2.add(c1, f64x2.mul(x, v128.load(bp, 16)));
    c2 = f64x2.add(c2, f64x2.mul(x, v128.load(bp, 32)));
    c3 = f64x2.add(c3, f64x2.mul(x, v128.load(bp, 48)));
    ap += cs;
    bp += ldb;
  }
  v128.store(c, c0);
  v128.store(c, c1, 16);
  v128.store(c, c2, 32);
  v128.store(c, c3, 48);
}

@inline
function tile1x2(a: usize, cs: usize, b: usize, ldb: usize, c: usize, K: i32, bias: usize, hasBias: bool): void {
  let c0 = hasBias ? v128.load(bias) : f64x2.splat(0);
  let ap = a, bp = b;
  for (let k = 0; k < K; k++) {
    c0 = f64x2.add(c0, f64x2.mul(v128.load64_splat(ap), v128.load(bp)));
    ap += cs;
    bp += ldb;
  }
  v128.store(c, c0);
}

@inline
function tile1x1(a: usize, cs: usize, b: usize, ldb: usize, c: usize, K: i32, bias: usize, hasBias: bool): void {
  let s: f64 = hasBias ? load<f64>(bias) : 0;
  let ap = a, bp = b;
  for (let k = 0; k < K; k++) {
    s += load<f64>(ap) * load<f64>(bp);
    ap += cs;
    bp += ldb;
  }
  store<f64>(c, s);
}

/** Columns n0 … N−1 of one row of C. */
function rowFrom(a: usize, cs: usize, b: usize, ldb: usize, c: usize, N: i32, n0: i32, K: i32, bias: usize, hasBias: bool): void {
  let n = n0;
  for (; n + 8 <= N; n += 8) tile1x8(a, cs, b + (<usize>n << 3), ldb, c + (<usize>n << 3), K, bias + (<usize>n << 3), hasBias);
  for (; n + 2 <= N; n += 2) tile1x2(a, cs, b + (<usize>n << 3), ldb, c + (<usize>n << 3), K, bias + (<usize>n << 3), hasBias);
  if (n < N) tile1x1(a, cs, b + (<usize>n << 3), ldb, c + (<usize>n << 3), K, bias + (<usize>n << 3), hasBias);
}

/**
 * C[m·ldc + n] = bias[n] + Σ_k A[m·rsA + k·csA] · B[k·ldb + n] for m < M, n < N (strides in elements; bias
 * ignored when hasBias is 0).
 */
export function gemm(a: usize, rsA: i32, csA: i32, b: usize, ldb: i32, c: usize, ldc: i32, M: i32, N: i32, K: i32, bias: usize, hasBias: i32): void {
  const rs = <usize>rsA << 3, cs = <usize>csA << 3, lb = <usize>ldb << 3, lc = <usize>ldc << 3;
  const withBias = hasBias != 0;
  let m = 0;
  for (; m + 4 <= M; m += 4) {
    const am = a + <usize>m * rs, cm = c + <usize>m * lc;
    let n = 0;
    for (; n + 4 <= N; n += 4) tile4x4(am, rs, cs, b + (<usize>n << 3), lb, cm + (<usize>n << 3), lc, K, bias + (<usize>n << 3), withBias);
    if (n < N) for (let r = 0; r < 4; r++) rowFrom(am + <usize>r * rs, cs, b, lb, cm + <usize>r * lc, N, n, K, bias, withBias);
  }
  for (; m < M; m++) rowFrom(a + <usize>m * rs, cs, b, lb, c + <usize>m * lc, N, 0, K, bias, withBias);
}
