import { describe, expect, it } from "vitest";
import type { JudgmentFile } from "../cli/judge-file.ts";
import { getTask } from "../tasks/index.ts";
import { checkpointScore, intentCheckpointJudge } from "./p2p-intent-judge.ts";
import { checkpointsOf } from "./p2p-trainer.ts";

/** The intent judge's arithmetic and the checkpoints' kept policies, without a model or a browser. */

const final = { fitness: 3, perSeed: [1, 2, 6].map((fitness, i) => ({ seed: 9 + i, fitness })) };
const curve = [1024, 2048, 3072, 4096].map((step) => ({ step, fitness: step / 1000 }));

describe("checkpoints of a training that kept its policies", () => {
  it("name the policy of each judged checkpoint, the last the final policy", () => {
    const kept = curve.map((c) => ({ step: c.step, policy: `/jobs/j/checkpoint-${c.step}.json` }));
    const cps = checkpointsOf({ fitnessCurve: curve, final, steps: 4096, checkpointPolicies: kept, policy: "/jobs/j/policy.json" });
    expect(cps.map((c) => [c.fraction, c.policy])).toEqual([
      [0.25, "/jobs/j/checkpoint-1024.json"],
      [0.5, "/jobs/j/checkpoint-2048.json"],
      [0.75, "/jobs/j/checkpoint-3072.json"],
      [1, "/jobs/j/policy.json"],
    ]);
    expect(checkpointsOf({ fitnessCurve: curve, final, steps: 4096, policy: "/jobs/j/policy.json" }).every((c) => c.policy === undefined)).toBe(true);
  });
});

const pick = (pick: "p10" | "median" | "p90", seed: number, score: number, synthesis: JudgmentFile["picks"][number]["synthesis"]) => ({
  pick,
  seed,
  score,
  synthesis,
});

describe("an intent checkpoint's score", () => {
  it("is the mean synthesised score over the distinct picked episodes, an unsettled disagreement counting the lower", () => {
    const file = {
      picks: [
        pick("p10", 6, 0.2, { kind: "agree", score: 0.25, passed: false, code: 0.2, vision: 0.3, rule: "r" }),
        pick("median", 7, 0.9, { kind: "disagree", reason: "gap", code: 0.9, vision: 0.1, rule: "r" }),
        pick("p90", 7, 0.9, { kind: "disagree", reason: "gap", code: 0.9, vision: 0.1, rule: "r" }),
      ],
    } as unknown as JudgmentFile;
    const s = checkpointScore(file, "judged/x");
    expect(s.score).toBeCloseTo((0.25 + 0.1) / 2, 12);
    expect(s.detail).toBe("seed 6: code 0.20 → 0.25 (agree); seed 7: code 0.90 → 0.10 (disagree); judgment in judged/x");
  });

  it("is 0, labelled, where the trainer kept no policy", async () => {
    const j = intentCheckpointJudge(getTask("hopper"), { intent: "hop", passAt: 0.9, seeds: [1], dir: "/nowhere" }, { judge: {} as never });
    expect(j.passAt).toBe(0.9);
    expect(j.label).toMatch(/code judge alone; a judged score of the words, not a fitness/);
    const r = await j.judge(getTask("hopper"), { step: 10, fraction: 1, fitness: 1 }, { iteration: 0, config: 0, seed: 1 });
    expect(r).toEqual({ score: 0, detail: "no policy was kept at this checkpoint; not judged" });
  });
});
