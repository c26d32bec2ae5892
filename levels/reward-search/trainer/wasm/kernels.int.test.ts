import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ensureKernelWasm, KernelMemory, kernelWasmPath } from "./kernels.ts";

/** The definition: bias[n] (or 0) plus A[m,k]·B[k,n] for k = 0, 1, … in order, one rounding per product and per sum. */
const tripleLoop = (A: Float64Array, rsA: number, csA: number, B: Float64Array, ldb: number, M: number, N: number, K: number, bias: Float64Array | null) => {
  const C = new Float64Array(M * N);
  for (let m = 0; m < M; m++)
    for (let n = 0; n < N; n++) {
      let s = bias === null ? 0 : bias[n]!;
      for (let k = 0; k < K; k++) s += A[m * rsA + k * csA]! * B[k * ldb + n]!;
      C[m * N + n] = s;
    }
  return C;
};

/** Values of mixed sign and magnitude, so a sum in another order would round differently. */
const fill = (x: Float64Array, seed: number) => {
  for (let i = 0; i < x.length; i++) x[i] = Math.sin(seed + i * 1.37) * 10 ** ((i % 7) - 3);
};

const SIZES = [1, 2, 3, 4, 5, 7, 8, 9, 11, 64];

describe("the wasm SIMD gemm", () => {
  it("equals the triple loop bit for bit on every tail of the tiling, with and without bias, for A and Aᵀ", () => {
    const max = 64;
    const mem = new KernelMemory([max * max, max * max, max * max, max]);
    const [A, B, C, bias] = mem.views as [Float64Array, Float64Array, Float64Array, Float64Array];
    fill(A, 1);
    fill(B, 2);
    fill(bias, 3);
    let cases = 0;
    for (const M of SIZES)
      for (const N of SIZES)
        for (const K of [0, 1, 3, 64])
          for (const transposed of [false, true])
            for (const b of [null, bias]) {
              const [rsA, csA] = transposed ? [1, M] : [K, 1];
              mem.gemm(A, 0, rsA, csA, B, 0, N, C, 0, N, M, N, K, b, 0);
              const want = tripleLoop(A, rsA, csA, B, N, M, N, K, b);
              const got = C.slice(0, M * N);
              if (!got.every((v, i) => Object.is(v, want[i]))) expect.fail(`M ${M} N ${N} K ${K} transposed ${transposed} bias ${b !== null}`);
              cases++;
            }
    expect(cases).toBe(SIZES.length * SIZES.length * 4 * 2 * 2);
  });

  it("reads and writes at the given offsets and leading dimensions, and nothing beyond a row's N columns", () => {
    const mem = new KernelMemory([200, 200, 200, 20]);
    const [A, B, C, bias] = mem.views as [Float64Array, Float64Array, Float64Array, Float64Array];
    fill(A, 4);
    fill(B, 5);
    fill(bias, 6);
    C.fill(-7);
    const [M, N, K, ldb, ldc] = [5, 6, 7, 9, 10];
    mem.gemm(A, 3, K, 1, B, 2, ldb, C, 4, ldc, M, N, K, bias, 1);
    const want = tripleLoop(A.subarray(3), K, 1, B.subarray(2), ldb, M, N, K, bias.subarray(1));
    for (let i = 0; i < C.length; i++) {
      const r = Math.floor((i - 4) / ldc),
        n = (i - 4) % ldc;
      const inside = i >= 4 && r < M && n < N;
      expect(C[i], `C[${i}]`).toBe(inside ? want[r * N + n] : -7);
    }
  });

  it("refuses an operand that does not live in its memory", () => {
    const mem = new KernelMemory([4, 4, 4]);
    const [A, B] = mem.views as [Float64Array, Float64Array];
    expect(() => mem.gemm(A, 0, 2, 1, B, 0, 2, new Float64Array(4), 0, 2, 2, 2, 2, null, 0)).toThrow(/outside this kernel's memory/);
  });

  it("gives each instance its own memory, zeroed", () => {
    const one = new KernelMemory([8]),
      two = new KernelMemory([8]);
    one.views[0]!.fill(5);
    expect([...two.views[0]!]).toEqual(new Array(8).fill(0));
  });
});

describe("the wasm tanh, its gradient and the transpose", () => {
  it("tanh is within 3e-7 of Math.tanh, saturates to ±1, keeps NaN, and gives a lane and the scalar tail the same bits", () => {
    const xs = [-40, -7.9053112, -3, -2, -0.5, -1e-9, 0, 1e-9, 0.25, 1, 2.5, 7.9053112, 8, 1e6, Number.POSITIVE_INFINITY];
    // Each value at an even place and (xs has odd length) at an odd one, two NaNs between, and xs[3] in the scalar tail.
    const len = xs.length,
      n = 2 * len + 3;
    const mem = new KernelMemory([n]);
    const [y] = mem.views as [Float64Array];
    xs.forEach((x, i) => {
      y[i] = x;
      y[len + 2 + i] = x;
    });
    y[len] = y[len + 1] = Number.NaN;
    y[n - 1] = xs[3]!;
    mem.tanhInPlace(y, n);
    xs.forEach((x, i) => {
      expect(Math.abs(y[i]! - Math.tanh(x)), `tanh(${x})`).toBeLessThan(3e-7);
      expect(Object.is(y[i], y[len + 2 + i]), `tanh(${x}) in both lanes`).toBe(true);
    });
    expect(Number.isNaN(y[len]!) && Number.isNaN(y[len + 1]!)).toBe(true);
    expect(Object.is(y[n - 1], y[3])).toBe(true);
  });

  it("the gradient is da · (1 − y²) exactly, the odd tail included", () => {
    const n = 9;
    const mem = new KernelMemory([n, n, n]);
    const [da, y, dz] = mem.views as [Float64Array, Float64Array, Float64Array];
    fill(da, 7);
    for (let i = 0; i < n; i++) y[i] = Math.tanh(i - 4.3);
    mem.tanhBack(da, y, dz, n);
    for (let i = 0; i < n; i++) expect(dz[i]).toBe(da[i]! * (1 - y[i]! * y[i]!));
  });

  it("transposes a block at an offset into another offset", () => {
    const mem = new KernelMemory([40, 40]);
    const [src, dst] = mem.views as [Float64Array, Float64Array];
    fill(src, 8);
    dst.fill(-1);
    mem.transpose(src, 2, 3, 5, dst, 4);
    for (let r = 0; r < 3; r++) for (let c = 0; c < 5; c++) expect(dst[4 + c * 3 + r]).toBe(src[2 + r * 5 + c]);
    expect(dst.slice(0, 4).every((v) => v === -1) && dst.slice(19).every((v) => v === -1)).toBe(true);
  });
});

describe("building the kernels", () => {
  const dir = mkdtempSync(join(tmpdir(), "hexa-kernels-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("compiles the source where none is built, to the bytes the build made, under the same name", () => {
    const built = ensureKernelWasm();
    const fresh = ensureKernelWasm(dir);
    expect(fresh).toBe(kernelWasmPath(dir));
    expect(fresh.slice(dir.length)).toBe(built.slice(built.lastIndexOf("/")));
    expect(readFileSync(fresh).equals(readFileSync(built))).toBe(true);
    const exports = WebAssembly.Module.exports(new WebAssembly.Module(readFileSync(fresh))).map((e) => e.name);
    expect(exports.sort()).toEqual(["adamStep", "gemm", "memory", "sumSquares", "tanhBack", "tanhInPlace", "transpose"]);
  });
});
