import { describe, expect, it } from "vitest";
import { hackSuspect, survivalOverTraining } from "./hacking-rule.ts";
import { HACKING_ALARM, reflection } from "./tools/feedback.ts";
import type { JobResult } from "./trainer/client.ts";

type Windows = { mean: number; min: number; max: number }[];

/** A training's result with these components' windows and this F curve. */
const training = (components: Record<string, Windows>, curve: number[]): JobResult => ({
  final: { fitness: curve.at(-1)!, perSeed: [{ seed: 1, fitness: curve.at(-1)! }] },
  bestCheckpoint: { fitness: Math.max(...curve), step: 1 },
  components: Object.fromEntries(Object.entries(components).map(([k, ws]) => [k, ws.map((w, step) => ({ step, ...w }))])),
  episodeLength: [{ step: 1, mean: 30 }],
  fitnessCurve: curve.map((fitness, step) => ({ step, fitness })),
  steps: 2048,
  wallMs: 1,
  policy: "policy.json",
});
const alarmOf = (r: JobResult) =>
  reflection(r, 475)
    .split("\n")
    .find((l) => l.startsWith(HACKING_ALARM));

describe("the hacking rule (check_reward, the training feedback, the heuristic proposer)", () => {
  it("cartpole's hand-written reward: alive carries ~95% but is a survival term, no alarm even when F is flat", () => {
    // alive: 1 while the pole stands, 0 on the step it falls; angle and centre small penalties.
    const human = {
      alive: [
        { mean: 0.95, min: 0, max: 1 },
        { mean: 0.99, min: 1, max: 1 },
        { mean: 0.98, min: 0, max: 1 },
      ],
      angle: [
        { mean: -0.04, min: -0.5, max: 0 },
        { mean: -0.02, min: -0.3, max: 0 },
        { mean: -0.01, min: -0.2, max: 0 },
      ],
      centre: [
        { mean: -0.01, min: -0.1, max: 0 },
        { mean: -0.01, min: -0.1, max: 0 },
        { mean: -0.005, min: -0.05, max: 0 },
      ],
    };
    expect(survivalOverTraining(human.alive)).toBe(true);
    expect(alarmOf(training(human, [20, 90, 200]))).toBeUndefined();
    expect(alarmOf(training(human, [50, 50, 50]))).toBeUndefined();
  });

  it("a one-term reward is never a hack, whatever F does", () => {
    const dist = [
      { mean: -5, min: -9, max: -1 },
      { mean: -1, min: -3, max: 0 },
    ];
    expect(alarmOf(training({ dist }, [80, 10]))).toBeUndefined();
    expect(hackSuspect([{ name: "dist", share: 1, survival: false }])).toBeNull();
  });

  it("a real hack: a term that dominates and rose while F fell raises the alarm, naming it", () => {
    const spin = [
      { mean: 1, min: 0, max: 3 },
      { mean: 12, min: 4, max: 20 },
    ];
    const upright = [
      { mean: -0.2, min: -0.5, max: 0 },
      { mean: -0.3, min: -0.6, max: 0 },
    ];
    expect(alarmOf(training({ spin, upright }, [120, 30]))).toMatch(
      /^REWARD-HACKING ALARM: spin carries 9\d% of the reward's magnitude and rose over training \(1 → 12\) while F did not \(120 → 30\)/,
    );
    // The same term with F following it is the term that tracks F: no alarm.
    expect(alarmOf(training({ spin, upright }, [30, 120]))).toBeUndefined();
  });

  it("a term named as a survival term is exempt; an end-of-episode bonus (0 while the episode goes on) is not a survival term", () => {
    expect(
      hackSuspect([
        { name: "survival_bonus", share: 0.97, survival: false },
        { name: "x", share: 0.03, survival: false },
      ]),
    ).toBeNull();
    expect(
      hackSuspect([
        { name: "speed", share: 0.97, survival: false },
        { name: "x", share: 0.03, survival: false },
      ]),
    ).toEqual({ name: "speed", share: 0.97 });
    expect(survivalOverTraining([{ mean: 0.01, min: 0, max: 10 }])).toBe(false);
    expect(survivalOverTraining([{ mean: -0.9, min: -1, max: 0 }])).toBe(true);
  });
});
