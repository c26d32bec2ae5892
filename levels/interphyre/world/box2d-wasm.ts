import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type Box2DFactory from "box2d-wasm";

/**
 * The box2d-wasm module (Box2D 2.4.1 compiled to WebAssembly, docs/spec/interphyre.md §1.3c), loaded once per
 * process by this module's top-level await. Import it only through `loadEngine` (engines.ts), which imports it dynamically, so a
 * process that keeps the default engine never pays the load (~0.2 s).
 *
 * The UMD build is used: the ES build reads `__dirname`, which Node's ES modules lack. On Node 20 the
 * factory's own fetch of the .wasm file fails, so the binary is read here and passed as `wasmBinary`.
 * The plain build, not the SIMD one: results must not depend on which build a machine can run.
 */
export type Box2DModule = Awaited<ReturnType<typeof Box2DFactory>>;

const require = createRequire(import.meta.url);
const script = require.resolve("box2d-wasm/dist/umd/Box2D.js");
const factory = require(script) as typeof Box2DFactory;

export const box2d: Box2DModule = await factory({ wasmBinary: readFileSync(script.replace(/\.js$/, ".wasm")) });

/** Bytes the wasm heap spans now; it never shrinks, so worlds left unfreed show as growth over many worlds. */
export const wasmHeapBytes = (): number => box2d.HEAPU8.byteLength;

/**
 * Where a fresh 64 KiB allocation lands: the lowest free block that size. Blocks that worlds fail to give
 * back push it up; it complements the heap size, which only shows a leak once the heap must grow.
 */
export const wasmHighWater = (): number => {
  const p = box2d._malloc(65536);
  box2d._free(p);
  return p;
};
