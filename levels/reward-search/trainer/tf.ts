/**
 * The trainer's one home for TensorFlow.js: the wasm backend with SIMD on one thread, so a run is bitwise
 * deterministic for a seed and needs no native addon (tfjs-node cannot be installed everywhere hexa runs).
 */
import { createRequire } from "node:module";
import path from "node:path";
import * as tf from "@tensorflow/tfjs";
import { setWasmPaths } from "@tensorflow/tfjs-backend-wasm";

export { tf };

let ready: Promise<void> | null = null;

/** Set up the wasm backend once per process (later calls return the same promise). */
export const initTf = (): Promise<void> => {
  ready ??= (async () => {
    const require = createRequire(import.meta.url);
    const dist = path.join(path.dirname(require.resolve("@tensorflow/tfjs-backend-wasm/package.json")), "dist") + path.sep;
    setWasmPaths(dist);
    // One thread: the threaded build needs cross-origin isolation and would make float sums order-dependent.
    tf.env().set("WASM_HAS_MULTITHREAD_SUPPORT", false);
    const ok = await tf.setBackend("wasm");
    if (!ok) throw new Error(`@tensorflow/tfjs-backend-wasm: could not start the wasm backend from ${dist}; reinstall node_modules`);
    await tf.ready();
  })();
  return ready;
};

/** Bytes of the wasm backend's heap: it only grows, up to 4 GiB, where the backend fails ("memory access out of bounds"). */
export const wasmHeapBytes = (): number => (tf.backend() as unknown as { wasm?: { HEAPU8?: Uint8Array } }).wasm?.HEAPU8?.length ?? 0;

/**
 * A fresh wasm backend (a new module with a new heap) in place of the current one; every tensor of the old one
 * is lost, so the caller saves what it needs first. PPO's updates grow tfjs-backend-wasm 4.22's heap by ~16 MiB
 * per 2048-step iteration (CleanRL's hopper settings) while the live tensors stay the same, which reaches the
 * 4 GiB cap near 575k env steps; ppo.ts restarts the backend well before that.
 */
export const restartTf = async (): Promise<void> => {
  await initTf();
  const registry = (tf.engine() as unknown as { registryFactory: Record<string, { factory: () => unknown; priority: number }> }).registryFactory;
  const entry = registry.wasm;
  if (!entry) throw new Error("@tensorflow/tfjs-backend-wasm: the wasm backend is not registered; cannot restart it");
  tf.removeBackend("wasm");
  tf.registerBackend("wasm", entry.factory as Parameters<typeof tf.registerBackend>[1], entry.priority);
  const ok = await tf.setBackend("wasm");
  if (!ok) throw new Error("@tensorflow/tfjs-backend-wasm: could not restart the wasm backend");
  await tf.ready();
};
