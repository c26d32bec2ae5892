import { describe, expect, it } from "vitest";
import { xoshiro128ss } from "../../../src/util/rng.ts";
import { initParams, policyLayout, type PolicyShape } from "./policy.ts";
import { PpoGradient, totalLoss, type Minibatch, type ObjectiveConfig } from "./ppo-gradient.ts";

const shapes: Array<[string, PolicyShape]> = [
  ["discrete, separate", { obsDim: 4, action: { kind: "discrete", n: 3 }, hidden: 8, shared: false }],
  ["discrete, shared", { obsDim: 4, action: { kind: "discrete", n: 2 }, hidden: 8, shared: true }],
  ["continuous, separate", { obsDim: 4, action: { kind: "continuous", dim: 2, low: [-1, -1], high: [1, 1] }, hidden: 8, shared: false }],
  ["continuous, shared", { obsDim: 4, action: { kind: "continuous", dim: 2, low: [-1, -1], high: [1, 1] }, hidden: 8, shared: true }],
];

/** θ (float64, perturbed from CleanRL's init so that ratios leave the clip range) and a random minibatch. */
const problem = (shape: PolicyShape, B: number, seed: number) => {
  const rng = xoshiro128ss(seed);
  const l = policyLayout(shape);
  const theta = Float64Array.from(initParams(l, rng), (v) => v + 0.3 * rng.normal());
  const f = (n: number, s: number, m = 0) => Float64Array.from({ length: n }, () => m + s * rng.normal());
  const actions = shape.action.kind === "discrete" ? Float64Array.from({ length: B }, () => rng.int(l.outDim)) : f(B * l.outDim, 1);
  const mb: Minibatch = { size: B, obs: f(B * shape.obsDim, 1), actions, oldLogp: f(B, 0.5, -1), adv: f(B, 1), returns: f(B, 1), oldValue: f(B, 0.3) };
  return { l, theta, mb };
};

describe("the PPO gradient kernel", () => {
  it.each(shapes)("equals central finite differences of its loss in float64, in every parameter block (%s)", (_name, shape) => {
    const { l, theta, mb } = problem(shape, 24, 5);
    for (const clipValueLoss of [true, false]) {
      const c: ObjectiveConfig = { clipCoef: 0.2, entCoef: 0.05, vfCoef: 0.5, clipValueLoss };
      const kernel = new PpoGradient(l, mb.size, c);
      expect(kernel.compute(theta, mb).clipFrac).toBeGreaterThan(0);
      const grad = kernel.grad.slice();
      const loss = (t: Float64Array) => totalLoss(kernel.compute(t, mb), c);
      const h = 1e-6;
      for (const p of l.params) {
        let maxErr = 0,
          maxAbs = 0;
        for (let i = p.offset; i < p.offset + p.size; i++) {
          const plus = theta.slice(),
            minus = theta.slice();
          plus[i]! += h;
          minus[i]! -= h;
          const fd = (loss(plus) - loss(minus)) / (2 * h);
          maxErr = Math.max(maxErr, Math.abs(fd - grad[i]!));
          maxAbs = Math.max(maxAbs, Math.abs(grad[i]!));
        }
        expect(maxAbs, p.name).toBeGreaterThan(1e-4);
        expect(maxErr, p.name).toBeLessThan(1e-6 + 1e-5 * maxAbs);
      }
    }
  });

  it("computes the losses CleanRL logs on hand-worked numbers", () => {
    // One row, a 1-D Gaussian with log-std 0 and a network whose head and value are their biases (all weights 0).
    const l = policyLayout({ obsDim: 1, action: { kind: "continuous", dim: 1, low: [-1], high: [1] }, hidden: 4, shared: false });
    const theta = new Float64Array(l.size);
    const bias = (name: string) => l.params.find((p) => p.name === name)!.offset;
    theta[bias("pi.b3")] = 0.5; // μ
    theta[bias("v.b3")] = 1; // V
    const c: ObjectiveConfig = { clipCoef: 0.2, entCoef: 0.01, vfCoef: 0.5, clipValueLoss: true };
    // action 0.5 ⇒ z = 0, log p = −½ log 2π; old log p = log p − log 1.5 ⇒ ratio 1.5, clipped to 1.2; A = 1.
    const logp = -0.5 * Math.log(2 * Math.PI);
    const mb: Minibatch = {
      size: 1,
      obs: Float64Array.of(0.3),
      actions: Float64Array.of(0.5),
      oldLogp: Float64Array.of(logp - Math.log(1.5)),
      adv: Float64Array.of(1),
      returns: Float64Array.of(3),
      oldValue: Float64Array.of(0),
    };
    const s = new PpoGradient(l, 1, c).compute(theta, mb);
    expect(s.policyLoss).toBeCloseTo(-1.2, 12); // max(−1.5, −1.2)
    expect(s.clipFrac).toBe(1);
    expect(s.approxKl).toBeCloseTo(0.5 - Math.log(1.5), 12);
    // V = 1 moved 1 from old 0: clipped to 0.2; max((1 − 3)², (0.2 − 3)²) = 7.84.
    expect(s.valueLoss).toBeCloseTo(0.5 * 7.84, 12);
    expect(s.entropy).toBeCloseTo(0.5 * (1 + Math.log(2 * Math.PI)), 12);
  });

  it("gives the same bytes on a second call with the same workspaces, and on a fresh kernel", () => {
    const { l, theta, mb } = problem(shapes[2]![1], 32, 9);
    const c: ObjectiveConfig = { clipCoef: 0.2, entCoef: 0.01, vfCoef: 0.5, clipValueLoss: true };
    const a = new PpoGradient(l, 32, c);
    const first = { ...a.compute(theta, mb), grad: a.grad.slice() };
    a.compute(
      theta.map((v) => v * 1.1),
      mb,
    );
    const again = { ...a.compute(theta, mb), grad: a.grad.slice() };
    const b = new PpoGradient(l, 32, c);
    const fresh = { ...b.compute(theta, mb), grad: b.grad.slice() };
    expect(again).toEqual(first);
    expect(fresh).toEqual(first);
  });
});
