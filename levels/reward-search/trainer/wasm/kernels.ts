/**
 * The PPO kernels' matrix product (kernels.as.ts, AssemblyScript with float64 SIMD) and the memory it works in.
 * The .wasm is never committed: scripts/build.mjs compiles it into dist/wasm/ under a name keyed by a hash of its
 * source, its compiler flags and the pinned compiler, and a run from the sources that finds no such file compiles
 * it there first (docs/spec/reward-search.md §6, kernels).
 */
import { execaSync } from "execa";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const SOURCE = fileURLToPath(new URL("./kernels.as.ts", import.meta.url));
const ROOT = fileURLToPath(new URL("../../../../", import.meta.url));
const ASC_FLAGS = ["--enable", "simd", "-O3", "--runtime", "stub", "--noAssert"];
const KERNEL_DIR = join(ROOT, "dist", "wasm");

/**
 * Where the compiled kernel of the current source lives: kernels-<hash of source, flags, compiler pin>.wasm in
 * `dir` (dist/wasm/ but in tests).
 * @public scripts/build.mjs imports it from dist/.
 */
export const kernelWasmPath = (dir = KERNEL_DIR): string => {
  const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { devDependencies?: Record<string, string> };
  const key = createHash("sha256")
    .update(readFileSync(SOURCE))
    .update(`\n${ASC_FLAGS.join(" ")}\nassemblyscript@${pkg.devDependencies?.assemblyscript ?? "unpinned"}\n`)
    .digest("hex")
    .slice(0, 16);
  return join(dir, `kernels-${key}.wasm`);
};

/**
 * The compiled kernel's path, compiling it with the pinned AssemblyScript first when it is missing.
 * @public scripts/build.mjs imports it from dist/.
 */
export const ensureKernelWasm = (dir = KERNEL_DIR): string => {
  const out = kernelWasmPath(dir);
  if (existsSync(out)) return out;
  let asc: string;
  try {
    asc = join(dirname(createRequire(import.meta.url).resolve("assemblyscript/package.json")), "bin", "asc.js");
  } catch {
    throw new Error(`PPO kernel ${out} is not built and AssemblyScript (a devDependency) is not installed: run \`npm run build\` where it is`);
  }
  mkdirSync(dirname(out), { recursive: true });
  const tmp = `${out}.${process.pid}.tmp`;
  execaSync(process.execPath, [asc, SOURCE, ...ASC_FLAGS, "-o", tmp], { stdin: "ignore", stdout: "ignore", stderr: "inherit" });
  renameSync(tmp, out); // atomic: a concurrent run reads a whole file or none
  return out;
};

let compiled: WebAssembly.Module | undefined;
const kernelModule = (): WebAssembly.Module => (compiled ??= new WebAssembly.Module(readFileSync(ensureKernelWasm())));

interface KernelExports {
  memory: WebAssembly.Memory;
  gemm(
    a: number,
    rsA: number,
    csA: number,
    b: number,
    ldb: number,
    c: number,
    ldc: number,
    M: number,
    N: number,
    K: number,
    bias: number,
    hasBias: number,
  ): void;
  tanhInPlace(y: number, n: number): void;
  tanhBack(da: number, y: number, dz: number, n: number): void;
  transpose(src: number, rows: number, cols: number, dst: number): void;
  sumSquares(g: number, n: number): number;
  adamStep(theta: number, g: number, m: number, v: number, n: number, scale: number, stepSize: number, invRootBc2: number): void;
}

/** Doubles rounded up to 16 bytes, so every view starts where a v128 load would be aligned. */
const paddedBytes = (doubles: number): number => Math.ceil(doubles / 2) * 16;

/**
 * One instance of the kernels with its own memory, sized once: `views` are Float64Arrays of the requested sizes
 * inside it (zeroed), valid for the instance's life since its memory never grows afterwards. The kernels take
 * only these views (an index into one is an offset), so nothing is copied per call.
 */
export class KernelMemory {
  readonly views: Float64Array[];
  private readonly buffer: ArrayBuffer;
  private readonly k: KernelExports;

  constructor(sizes: readonly number[]) {
    this.k = new WebAssembly.Instance(kernelModule(), {}).exports as unknown as KernelExports;
    const memory = this.k.memory;
    const base = paddedBytes(memory.buffer.byteLength / 8);
    const total = base + sizes.reduce((s, n) => s + paddedBytes(n), 0);
    memory.grow(Math.ceil(Math.max(0, total - memory.buffer.byteLength) / 65536));
    this.buffer = memory.buffer;
    let at = base;
    this.views = sizes.map((n) => {
      const v = new Float64Array(this.buffer, at, n);
      at += paddedBytes(n);
      return v;
    });
  }

  /** The first n float32s of a view (one of `views`, of at least n / 2 doubles). */
  float32(view: Float64Array, n: number): Float32Array {
    if (view.buffer !== this.buffer || n > view.length * 2) throw new RangeError(`kernels: no room for ${n} float32s in that view`);
    return new Float32Array(this.buffer, view.byteOffset, n);
  }

  private address(x: Float64Array | Float32Array, off: number): number {
    if (x.buffer !== this.buffer) throw new RangeError("kernels: an operand outside this kernel's memory");
    return x.byteOffset + off * x.BYTES_PER_ELEMENT;
  }

  /**
   * C[cOff + m·ldc + n] = bias[biasOff + n] + Σ_k A[aOff + m·rsA + k·csA] · B[bOff + k·ldb + n] for m < M, n < N,
   * each sum over k = 0, 1, … in order, each product rounded before it is added (strides in elements; no bias:
   * sums start at 0).
   */
  gemm(
    A: Float64Array,
    aOff: number,
    rsA: number,
    csA: number,
    B: Float64Array,
    bOff: number,
    ldb: number,
    C: Float64Array,
    cOff: number,
    ldc: number,
    M: number,
    N: number,
    K: number,
    bias: Float64Array | null,
    biasOff: number,
  ): void {
    const b = bias === null ? 0 : this.address(bias, biasOff);
    this.k.gemm(this.address(A, aOff), rsA, csA, this.address(B, bOff), ldb, this.address(C, cOff), ldc, M, N, K, b, bias === null ? 0 : 1);
  }

  /** y[i] = tanh(y[i]) for i < n, tanh as Eigen's rational approximation (|error| < 3e-7). */
  tanhInPlace(y: Float64Array, n: number): void {
    this.k.tanhInPlace(this.address(y, 0), n);
  }

  /** dz[i] = da[i] · (1 − y[i]²) for i < n: the gradient through y = tanh(z). */
  tanhBack(da: Float64Array, y: Float64Array, dz: Float64Array, n: number): void {
    this.k.tanhBack(this.address(da, 0), this.address(y, 0), this.address(dz, 0), n);
  }

  /** dst (cols × rows, at dstOff) = srcᵀ, src rows × cols at srcOff. */
  transpose(src: Float64Array, srcOff: number, rows: number, cols: number, dst: Float64Array, dstOff: number): void {
    this.k.transpose(this.address(src, srcOff), rows, cols, this.address(dst, dstOff));
  }

  /** Σ g[i]² over the whole view, in order. */
  sumSquares(g: Float64Array): number {
    return this.k.sumSquares(this.address(g, 0), g.length);
  }

  /**
   * One Adam step over all of θ (float32): with g' = g · scale, m ← β1·m + (1 − β1)·g', v ← β2·v + (1 − β2)·g'²,
   * θ ← θ − stepSize · m / (√v · invRootBc2 + eps), β 0.9/0.999, eps 1e-5.
   */
  adamStep(theta: Float32Array, g: Float64Array, m: Float64Array, v: Float64Array, scale: number, stepSize: number, invRootBc2: number): void {
    const n = theta.length;
    if (g.length < n || m.length < n || v.length < n) throw new RangeError(`kernels: Adam over ${n} parameters with shorter moments or gradient`);
    this.k.adamStep(this.address(theta, 0), this.address(g, 0), this.address(m, 0), this.address(v, 0), n, scale, stepSize, invRootBc2);
  }
}
