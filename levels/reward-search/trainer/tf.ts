/**
 * The one home of TensorFlow.js: the wasm backend with SIMD on one thread (deterministic, no native addon), for
 * the tests' reference gradients (tfjs-gradient.ts). The trainer itself runs on typed-array kernels
 * (ppo-gradient.ts) and never loads it.
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
