import { describe, expect, it } from "vitest";
import { trajectoryReward } from "./reward.ts";

describe("r(τ)", () => {
  it("follows docs/spec/method.md §2 at T = 25", () => {
    const at = (s: boolean, n: number) => trajectoryReward(s, n, 25);
    expect([1, 3].map((n) => at(true, n))).toEqual([
      { category: "fast_success", r: 1 },
      { category: "fast_success", r: 1 },
    ]);
    expect([4, 7].map((n) => at(true, n).r)).toEqual([0.75, 0.75]);
    expect([8, 15].map((n) => at(true, n).r)).toEqual([0.5, 0.5]);
    expect([16, 25].map((n) => at(true, n))).toEqual([
      { category: "slow_success", r: 0.25 },
      { category: "slow_success", r: 0.25 },
    ]);
    expect(at(false, 9)).toEqual({ category: "early_abandon_failure", r: -0.75 });
    expect(at(false, 10)).toEqual({ category: "exploratory_failure", r: -0.5 });
    expect(at(false, 25).r).toBe(-0.5);
  });

  it("scales the bucket edges with T", () => {
    expect(trajectoryReward(true, 6, 50).category).toBe("fast_success");
    expect(trajectoryReward(true, 7, 50).r).toBe(0.75);
    expect(trajectoryReward(false, 19, 50).r).toBe(-0.75);
    expect(trajectoryReward(false, 20, 50).r).toBe(-0.5);
    expect(trajectoryReward(true, 2, 12).r).toBe(1);
    expect(trajectoryReward(true, 3, 12).r).toBe(0.75);
    expect(trajectoryReward(true, 1, 2)).toEqual({ category: "fast_success", r: 1 });
    expect(trajectoryReward(true, 2, 2).r).toBe(0.5);
    expect(trajectoryReward(false, 1, 2).r).toBe(-0.5);
  });
});
