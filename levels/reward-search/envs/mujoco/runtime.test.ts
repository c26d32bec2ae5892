import { Worker } from "node:worker_threads";
import { describe, expect, it } from "vitest";

/**
 * MuJoCo's wasm module is loaded once per thread, and test files share their worker's modules, so a thread where
 * no task was prepared is a fresh worker thread (fixtures/unprepared-reset.mjs).
 */
const inFreshThread = async (): Promise<unknown> => {
  const worker = new Worker(new URL("./fixtures/unprepared-reset.mjs", import.meta.url), { execArgv: [] });
  try {
    return await new Promise((resolve, reject) => {
      worker.once("message", resolve);
      worker.once("error", reject);
      worker.once("exit", (code) => reject(new Error(`the worker exited (code ${code}) before it answered`)));
    });
  } finally {
    await worker.terminate();
  }
};

describe("a MuJoCo task before prepare()", () => {
  it("makes an env (its shape needs no wasm) but refuses to reset it, naming the fix", async () => {
    expect(await inFreshThread()).toEqual({
      obsDim: 105,
      action: expect.objectContaining({ kind: "continuous", dim: 8 }),
      reset: {
        name: "InvariantError",
        message: expect.stringMatching(/^mujoco env ant\.xml: MuJoCo's wasm module is not loaded in this thread; await task\.prepare\(\)/),
      },
    });
  });
});
