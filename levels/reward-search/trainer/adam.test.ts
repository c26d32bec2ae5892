import { describe, expect, it } from "vitest";
import { xoshiro128ss } from "../../../src/util/rng.ts";
import { AdamBuffers, FlatAdam } from "./adam.ts";
import { initParams, policyLayout } from "./policy.ts";
import type { Minibatch } from "./ppo-gradient.ts";

describe("Adam with global-norm clipping", () => {
  it("takes the hand-computed first and second steps, the gradient clipped to norm 0.5, θ rounded to float32", () => {
    // g = (3, 4): norm 5, clipped by 0.5 / (5 + 1e-6) to ≈ (0.3, 0.4).
    const adam = new AdamBuffers(2);
    const { theta, g, m, v } = adam;
    theta.set([1, -1]);
    g.set([3, 4]);
    const s = 0.5 / (5 + 1e-6);
    adam.update(1, 0.1, 0.5);
    // Step 1: m = 0.1·g', v = 0.001·g'², m̂ = g', v̂ = g'² ⇒ θ −= 0.1 · g' / (|g'| + 1e-5).
    const g1 = [3 * s, 4 * s];
    expect(m[0]).toBeCloseTo(0.1 * g1[0]!, 15);
    expect(v[1]).toBeCloseTo(0.001 * g1[1]! ** 2, 15);
    expect(theta[0]).toBe(Math.fround(1 - (0.1 * g1[0]!) / (g1[0]! + 1e-5)));
    expect(theta[1]).toBe(Math.fround(-1 - (0.1 * g1[1]!) / (g1[1]! + 1e-5)));
    // Step 2 with a small gradient (norm 0.05: not clipped): moments from step 1's.
    const g2 = [0.03, -0.04];
    const before = [theta[0]!, theta[1]!];
    g.set(g2);
    adam.update(2, 0.1, 0.5);
    for (let i = 0; i < 2; i++) {
      const mi = 0.9 * 0.1 * g1[i]! + 0.1 * g2[i]!;
      const vi = 0.999 * 0.001 * g1[i]! ** 2 + 0.001 * g2[i]! ** 2;
      const want = before[i]! - ((0.1 / (1 - 0.9 ** 2)) * mi) / (Math.sqrt(vi) / Math.sqrt(1 - 0.999 ** 2) + 1e-5);
      expect(m[i]).toBeCloseTo(mi, 15);
      expect(v[i]).toBeCloseTo(vi, 15);
      expect(theta[i]).toBeCloseTo(want, 6);
    }
  });

  it("gives every parameter, in a SIMD lane or in the odd tail, the bits of a scalar loop in index order", () => {
    const n = 7;
    const adam = new AdamBuffers(n);
    const theta = Float32Array.from({ length: n }, (_, i) => Math.sin(i));
    const g = Float64Array.from({ length: n }, (_, i) => Math.cos(i * 3) * 10 ** ((i % 5) - 2));
    const m = Float64Array.from({ length: n }, (_, i) => 0.01 * Math.sin(i * 7));
    const v = Float64Array.from({ length: n }, (_, i) => 1e-4 * (1 + Math.cos(i)));
    for (const [dst, src] of [
      [adam.theta, theta],
      [adam.g, g],
      [adam.m, m],
      [adam.v, v],
    ] as const)
      dst.set(src);
    const [t, lr, maxNorm] = [3, 3e-4, 0.05];
    adam.update(t, lr, maxNorm);
    // The scalar loop the kernel must equal.
    let sq = 0;
    for (let i = 0; i < n; i++) sq += g[i]! * g[i]!;
    const scale = Math.min(1, maxNorm / (Math.sqrt(sq) + 1e-6));
    expect(scale).toBeLessThan(1);
    const stepSize = lr / (1 - 0.9 ** t),
      invRootBc2 = 1 / Math.sqrt(1 - 0.999 ** t);
    for (let i = 0; i < n; i++) {
      const gi = g[i]! * scale;
      m[i] = 0.9 * m[i]! + (1 - 0.9) * gi;
      v[i] = 0.999 * v[i]! + (1 - 0.999) * gi * gi;
      theta[i] = theta[i]! - (stepSize * m[i]!) / (Math.sqrt(v[i]!) * invRootBc2 + 1e-5);
    }
    expect([...adam.theta]).toEqual([...theta]);
    expect([...adam.m]).toEqual([...m]);
    expect([...adam.v]).toEqual([...v]);
  });

  it("continues bit for bit from its saved state", () => {
    const layout = policyLayout({ obsDim: 11, action: { kind: "continuous", dim: 3, low: [-1, -1, -1], high: [1, 1, 1] }, hidden: 64, shared: false });
    const cfg = { clipCoef: 0.2, entCoef: 0, vfCoef: 0.5, maxGradNorm: 0.5, clipValueLoss: true };
    const minibatch = (k: number): Minibatch => {
      const rng = xoshiro128ss(100 + k);
      const f = (n: number) => Float64Array.from({ length: n }, () => rng.next() * 2 - 1);
      return { size: 64, obs: f(64 * 11), actions: f(64 * 3), oldLogp: f(64), adv: f(64), returns: f(64), oldValue: f(64) };
    };
    const init = initParams(layout, xoshiro128ss(7));
    const straight = new FlatAdam(layout, init, cfg, 64);
    for (let k = 0; k < 20; k++) straight.step(minibatch(k), 3e-4);
    const first = new FlatAdam(layout, init, cfg, 64);
    for (let k = 0; k < 10; k++) first.step(minibatch(k), 3e-4);
    const saved = first.save();
    const second = new FlatAdam(layout, saved.theta, cfg, 64, saved);
    for (let k = 10; k < 20; k++) second.step(minibatch(k), 3e-4);
    expect(second.save()).toEqual(straight.save());
    expect(straight.theta).not.toEqual(init);
    expect(() => straight.step({ ...minibatch(0), size: 32 }, 3e-4)).toThrow(/32 rows.*hold 64/);
  });
});
