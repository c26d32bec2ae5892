import { describe, expect, it } from "vitest";
import { xoshiro128ss } from "../../../src/util/rng.ts";
import { FlatAdam, type Minibatch } from "./adam.ts";
import { initParams, policyLayout } from "./policy.ts";
import { initTf, tf, wasmHeapBytes } from "./tf.ts";

const layout = policyLayout({ obsDim: 11, action: { kind: "continuous", dim: 3, low: [-1, -1, -1], high: [1, 1, 1] }, hidden: 64, shared: false });
const cfg = { clipCoef: 0.2, entCoef: 0, vfCoef: 0.5, maxGradNorm: 0.5, clipValueLoss: true };

/** Minibatch k of a fixed pseudo-random sequence. */
const minibatch = (k: number): Minibatch => {
  const rng = xoshiro128ss(100 + k);
  const f = (n: number) => Float32Array.from({ length: n }, () => rng.next() * 2 - 1);
  return { size: 64, obs: f(64 * 11), actions: f(64 * 3), oldLogp: f(64), adv: f(64), returns: f(64), oldValue: f(64) };
};

describe("the optimiser across a restart of the wasm backend", () => {
  it("continues bit for bit from its saved state on a fresh backend, whose heap starts small again", async () => {
    await initTf();
    const init = initParams(layout, xoshiro128ss(7));
    const straight = new FlatAdam(layout, init, cfg);
    for (let k = 0; k < 40; k++) straight.step(minibatch(k), 3e-4);
    const expected = straight.save();
    straight.dispose();

    const first = new FlatAdam(layout, init, cfg);
    for (let k = 0; k < 20; k++) first.step(minibatch(k), 3e-4);
    const backend = tf.backend();
    const second = await first.onFreshBackend();
    expect(tf.backend()).not.toBe(backend);
    expect(wasmHeapBytes()).toBeLessThanOrEqual(32 << 20);
    for (let k = 20; k < 40; k++) second.step(minibatch(k), 3e-4);
    const got = second.save();
    second.dispose();
    expect(got.t).toBe(40);
    expect(got.theta).toEqual(expected.theta);
    expect(got.m).toEqual(expected.m);
    expect(got.v).toEqual(expected.v);
    expect(got.theta).not.toEqual(init);
  }, 60_000);
});
