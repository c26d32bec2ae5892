import { describe, expect, it } from "vitest";
import { RewardScaler } from "./normalisers.ts";

/** Gymnasium's RunningMeanStd (prior: mean 0, var 1, count 1e-4) after the samples xs, in closed form. */
const runningVar = (xs: readonly number[]): number => {
  const prior = 1e-4;
  const count = prior + xs.length;
  const mu = xs.reduce((a, b) => a + b, 0) / count;
  const m2 = prior * 1 + prior * mu * mu + xs.reduce((a, x) => a + (x - mu) ** 2, 0);
  return m2 / count;
};

describe("RewardScaler (Gymnasium's NormalizeReward)", () => {
  it("restarts the discounted return at a terminal step's reward, as ret ← ret·γ·(1 − terminated) + r", () => {
    const s = new RewardScaler(1, 0.5);
    const rewards = [1, 2, 4, 8];
    const terminated = [0, 1, 0, 0];
    const seen: number[] = [];
    for (let t = 0; t < rewards.length; t++) {
      s.apply(Float64Array.of(rewards[t]!), Uint8Array.of(terminated[t]!), 1);
      seen.push(s.returns[0]!);
    }
    // A reset after the terminal step (gym < 0.26) would give 1, 2.5, 4, 10.
    expect(seen).toEqual([1, 2, 5, 10.5]);
  });

  it("scales each reward by the running std of the returns so far, clipped to ±10", () => {
    const s = new RewardScaler(1, 0.9);
    const r = Float64Array.of(3, -1, 2, 5, 0.5, -4);
    const term = Uint8Array.of(0, 0, 1, 0, 0, 0);
    const raw = [...r];
    s.apply(r, term, r.length);
    const rets: number[] = [];
    let ret = 0;
    raw.forEach((x, t) => {
      ret = ret * 0.9 * (1 - term[t]!) + x;
      rets.push(ret);
    });
    raw.forEach((x, t) => {
      const sd = Math.sqrt(runningVar(rets.slice(0, t + 1)) + 1e-8);
      expect(r[t]).toBeCloseTo(Math.max(-10, Math.min(10, x / sd)), 9);
    });
    expect(r.some((v) => Math.abs(v) < 10)).toBe(true);
  });

  it("keeps each env's return apart in a T × N block (row t·N + e)", () => {
    const s = new RewardScaler(2, 0.5);
    // env 0 terminates at t = 1; env 1 runs on.
    s.apply(Float64Array.of(1, 1, 2, 2, 4, 4), Uint8Array.of(0, 0, 1, 0, 0, 0), 3);
    expect(s.returns).toEqual([0.5 * 2 + 4, 0.25 * 1 + 0.5 * 2 + 4]);
  });
});
