/**
 * The PPO kernels' matrix product (gemm.as.ts, AssemblyScript with float64 SIMD) and the memory it works in.
 * The .wasm is never committed: scripts/build.mjs compiles it into dist/wasm/ under a name keyed by a hash of its
 * source, its compiler flags and the pinned compiler, and a run from the sources that finds no such file compiles
 * it there first (docs/spec/reward-search.md §6, kernels).
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const SOURCE = fileURLToPath(new URL("./gemm.as.ts", import.meta.url));
const ROOT = fileURLToPath(new URL("../../../../", import.meta.url));
const ASC_FLAGS = ["--enable", "simd", "-O3", "--runtime", "stub", "--noAssert"];

/** Where the compiled kernel of the current source lives: dist/wasm/gemm-<hash of source, flags, compiler pin>.wasm. */
export const gemmWasmPath = (): string => {
  const pkg = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { devDependencies?: Record<string, string> };
  const key = createHash("sha256")
    .update(readFileSync(SOURCE))
    .update(`\n${ASC_FLAGS.join(" ")}\nassemblyscript@${pkg.devDependencies?.assemblyscript ?? "unpinned"}\n`)
    .digest("hex")
    .slice(0, 16);
  return join(ROOT, "dist", "wasm", `gemm-${key}.wasm`);
};

/** The compiled kernel's path, compiling it with the pinned AssemblyScript first when it is missing. */
export const ensureGemmWasm = (): string => {
  const out = gemmWasmPath();
  if (existsSync(out)) return out;
  let asc: string;
  try {
    asc = join(dirname(createRequire(import.meta.url).resolve("assemblyscript/package.json")), "bin", "asc.js");
  } catch {
    throw new Error(`PPO kernel ${out} is not built and AssemblyScript (a devDependency) is not installed: run \`npm run build\` where it is`);
  }
  mkdirSync(dirname(out), { recursive: true });
  const tmp = `${out}.${process.pid}.tmp`;
  execFileSync(process.execPath, [asc, SOURCE, ...ASC_FLAGS, "-o", tmp], { stdio: ["ignore", "ignore", "inherit"] });
  renameSync(tmp, out); // atomic: a concurrent run reads a whole file or none
  return out;
};

let compiled: WebAssembly.Module | undefined;
const gemmModule = (): WebAssembly.Module => (compiled ??= new WebAssembly.Module(readFileSync(ensureGemmWasm())));

type GemmExport = (
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
) => void;

/** Doubles rounded up to 16 bytes, so every view starts where a v128 load would be aligned. */
const paddedBytes = (doubles: number): number => Math.ceil(doubles / 2) * 16;

/**
 * One instance of the kernel with its own memory, sized once: `views` are Float64Arrays of the requested sizes
 * inside it (zeroed), valid for the instance's life since its memory never grows afterwards. `gemm` takes only
 * these views, so nothing is copied per call.
 */
export class GemmMemory {
  readonly views: Float64Array[];
  private readonly buffer: ArrayBuffer;
  private readonly kernel: GemmExport;

  constructor(sizes: readonly number[]) {
    const instance = new WebAssembly.Instance(gemmModule(), {});
    const memory = instance.exports.memory as WebAssembly.Memory;
    this.kernel = instance.exports.gemm as GemmExport;
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

  private address(x: Float64Array, off: number): number {
    if (x.buffer !== this.buffer) throw new RangeError("gemm: an operand outside this kernel's memory");
    return x.byteOffset + off * 8;
  }

  /**
   * C[cOff + m·ldc + n] = bias[biasOff + n] + Σ_k A[aOff + m·rsA + k·csA] · B[bOff + k·ldb + n] for m < M, n < N,
   * each sum over k = 0, 1, … in order (strides in elements; no bias: sums start at 0).
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
    this.kernel(this.address(A, aOff), rsA, csA, this.address(B, bOff), ldb, this.address(C, cOff), ldc, M, N, K, b, bias === null ? 0 : 1);
  }
}
