// AssemblyScript, compiled by scripts/build.mjs (or on first use, kernels.ts) with `--enable simd`: the
// actor-critic's matrix products, its activation and the activation's gradient, and the transposes of its weights.
//
// gemm: C = bias + A·B over float64, A read through strides (so A or Aᵀ of a row-major matrix), B and C row-major.
// Every output is bias[n] (or 0) plus A[m,k]·B[k,n] for k = 0, 1, … in order, each product rounded and then
// added, as a scalar loop would: SIMD runs over n, never over k, so a result is the same bit for bit whatever
// the tiling, the batch or the machine (docs/spec/reward-search.md §6, kernels). Addresses and strides are bytes.

// tanh and its gradient run the same IEEE operations in the same order in each lane as a scalar loop would.

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

/** Two columns of four rows: the policy head's width and the tails of wider layers, four chains in flight. */
@inline
function tile4x2(a: usize, rs: usize, cs: usize, b: usize, ldb: usize, c: usize, ldc: usize, K: i32, bias: usize, hasBias: bool): void {
  const i0 = hasBias ? v128.load(bias) : f64x2.splat(0);
  let c0 = i0, c1 = i0, c2 = i0, c3 = i0;
  let ap = a, bp = b;
  const rs2 = rs + rs, rs3 = rs2 + rs;
  for (let k = 0; k < K; k++) {
    const y = v128.load(bp);
    c0 = f64x2.add(c0, f64x2.mul(v128.load64_splat(ap), y));
    c1 = f64x2.add(c1, f64x2.mul(v128.load64_splat(ap + rs), y));
    c2 = f64x2.add(c2, f64x2.mul(v128.load64_splat(ap + rs2), y));
    c3 = f64x2.add(c3, f64x2.mul(v128.load64_splat(ap + rs3), y));
    ap += cs;
    bp += ldb;
  }
  v128.store(c, c0);
  v128.store(c + ldc, c1);
  v128.store(c + 2 * ldc, c2);
  v128.store(c + 3 * ldc, c3);
}

/** One column of four rows (the value head's width). */
@inline
function tile4x1(a: usize, rs: usize, cs: usize, b: usize, ldb: usize, c: usize, ldc: usize, K: i32, bias: usize, hasBias: bool): void {
  const i0: f64 = hasBias ? load<f64>(bias) : 0;
  let s0 = i0, s1 = i0, s2 = i0, s3 = i0;
  let ap = a, bp = b;
  const rs2 = rs + rs, rs3 = rs2 + rs;
  for (let k = 0; k < K; k++) {
    const y = load<f64>(bp);
    s0 += load<f64>(ap) * y;
    s1 += load<f64>(ap + rs) * y;
    s2 += load<f64>(ap + rs2) * y;
    s3 += load<f64>(ap + rs3) * y;
    ap += cs;
    bp += ldb;
  }
  store<f64>(c, s0);
  store<f64>(c + ldc, s1);
  store<f64>(c + 2 * ldc, s2);
  store<f64>(c + 3 * ldc, s3);
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
    if (n + 2 <= N) {
      tile4x2(am, rs, cs, b + (<usize>n << 3), lb, cm + (<usize>n << 3), lc, K, bias + (<usize>n << 3), withBias);
      n += 2;
    }
    if (n < N) tile4x1(am, rs, cs, b + (<usize>n << 3), lb, cm + (<usize>n << 3), lc, K, bias + (<usize>n << 3), withBias);
  }
  for (; m < M; m++) rowFrom(a + <usize>m * rs, cs, b, lb, c + <usize>m * lc, N, 0, K, bias, withBias);
}

// tanh as Eigen's rational approximation, x·P(x²)/Q(x²) on x clamped to ±TANH_CLAMP (|error| < 3e-7).
const TANH_CLAMP: f64 = 7.905311107635498;
const P6: f64 = -2.76076847742355e-16, P5: f64 = 2.00018790482477e-13, P4: f64 = -8.60467152213735e-11, P3: f64 = 5.12229709037114e-8;
const P2: f64 = 1.48572235717979e-5, P1: f64 = 6.37261928875436e-4, P0: f64 = 4.89352455891786e-3;
const Q3: f64 = 1.19825839466702e-6, Q2: f64 = 1.18534705686654e-4, Q1: f64 = 2.268434632439e-3, Q0: f64 = 4.89352518554385e-3;

@inline
function tanhScalar(x: f64): f64 {
  const xc = x > TANH_CLAMP ? TANH_CLAMP : x < -TANH_CLAMP ? -TANH_CLAMP : x;
  const x2 = xc * xc;
  let p = P6;
  p = p * x2 + P5;
  p = p * x2 + P4;
  p = p * x2 + P3;
  p = p * x2 + P2;
  p = p * x2 + P1;
  p = p * x2 + P0;
  let q = Q3;
  q = q * x2 + Q2;
  q = q * x2 + Q1;
  q = q * x2 + Q0;
  return (xc * p) / q;
}

@inline
function muladd(a: v128, x: v128, c: f64): v128 {
  return f64x2.add(f64x2.mul(a, x), f64x2.splat(c));
}

/** y[i] = tanh(y[i]) for i < n; pmin/pmax clamp exactly as the scalar comparisons do (NaN stays NaN). */
export function tanhInPlace(y: usize, n: i32): void {
  let i = 0;
  for (; i + 2 <= n; i += 2) {
    const at = y + (<usize>i << 3);
    const xc = f64x2.pmax(f64x2.pmin(v128.load(at), f64x2.splat(TANH_CLAMP)), f64x2.splat(-TANH_CLAMP));
    const x2 = f64x2.mul(xc, xc);
    let p = f64x2.splat(P6);
    p = muladd(p, x2, P5);
    p = muladd(p, x2, P4);
    p = muladd(p, x2, P3);
    p = muladd(p, x2, P2);
    p = muladd(p, x2, P1);
    p = muladd(p, x2, P0);
    let q = f64x2.splat(Q3);
    q = muladd(q, x2, Q2);
    q = muladd(q, x2, Q1);
    q = muladd(q, x2, Q0);
    v128.store(at, f64x2.div(f64x2.mul(xc, p), q));
  }
  if (i < n) store<f64>(y + (<usize>i << 3), tanhScalar(load<f64>(y + (<usize>i << 3))));
}

/** dz[i] = da[i] · (1 − y[i]²) for i < n: the gradient through y = tanh(z). */
export function tanhBack(da: usize, y: usize, dz: usize, n: i32): void {
  const one = f64x2.splat(1);
  let i = 0;
  for (; i + 2 <= n; i += 2) {
    const o = <usize>i << 3;
    const t = v128.load(y + o);
    v128.store(dz + o, f64x2.mul(v128.load(da + o), f64x2.sub(one, f64x2.mul(t, t))));
  }
  if (i < n) {
    const o = <usize>i << 3;
    const t = load<f64>(y + o);
    store<f64>(dz + o, load<f64>(da + o) * (1 - t * t));
  }
}

/** dst (cols × rows) = srcᵀ, src rows × cols, both row-major. */
export function transpose(src: usize, rows: i32, cols: i32, dst: usize): void {
  for (let r = 0; r < rows; r++) {
    const s = src + (<usize>(r * cols) << 3);
    for (let c = 0; c < cols; c++) store<f64>(dst + (<usize>(c * rows + r) << 3), load<f64>(s + (<usize>c << 3)));
  }
}

/** Σ g[i]² for i = 0, 1, … < n in order: the gradient's squared norm, as a scalar loop sums it. */
export function sumSquares(g: usize, n: i32): f64 {
  let s: f64 = 0;
  for (let i = 0; i < n; i++) {
    const x = load<f64>(g + (<usize>i << 3));
    s += x * x;
  }
  return s;
}

const BETA1: f64 = 0.9, BETA2: f64 = 0.999, ADAM_EPS: f64 = 1e-5;

/**
 * One Adam step over n parameters, θ float32, its moments float64: with gᵢ' = gᵢ · scale, m ← β1·m + (1 − β1)·g',
 * v ← β2·v + (1 − β2)·g'·g', θ ← θ − stepSize·m / (√v · invRootBc2 + eps), rounded to float32.
 */
export function adamStep(theta: usize, g: usize, m: usize, v: usize, n: i32, scale: f64, stepSize: f64, invRootBc2: f64): void {
  const sc = f64x2.splat(scale), ss = f64x2.splat(stepSize), ir = f64x2.splat(invRootBc2);
  let i = 0;
  for (; i + 2 <= n; i += 2) {
    const o = <usize>i << 3, t = theta + (<usize>i << 2);
    const gi = f64x2.mul(v128.load(g + o), sc);
    const mi = f64x2.add(f64x2.mul(f64x2.splat(BETA1), v128.load(m + o)), f64x2.mul(f64x2.splat(1 - BETA1), gi));
    const vi = f64x2.add(f64x2.mul(f64x2.splat(BETA2), v128.load(v + o)), f64x2.mul(f64x2.mul(f64x2.splat(1 - BETA2), gi), gi));
    v128.store(m + o, mi);
    v128.store(v + o, vi);
    const th = f64x2.promote_low_f32x4(v128.load64_zero(t));
    const next = f64x2.sub(th, f64x2.div(f64x2.mul(ss, mi), f64x2.add(f64x2.mul(f64x2.sqrt(vi), ir), f64x2.splat(ADAM_EPS))));
    v128.store64_lane(t, f32x4.demote_f64x2_zero(next), 0);
  }
  if (i < n) {
    const o = <usize>i << 3, t = theta + (<usize>i << 2);
    const gi = load<f64>(g + o) * scale;
    const mi = BETA1 * load<f64>(m + o) + (1 - BETA1) * gi;
    const vi = BETA2 * load<f64>(v + o) + (1 - BETA2) * gi * gi;
    store<f64>(m + o, mi);
    store<f64>(v + o, vi);
    store<f32>(t, <f32>(<f64>load<f32>(t) - (stepSize * mi) / (Math.sqrt(vi) * invRootBc2 + ADAM_EPS)));
  }
}
