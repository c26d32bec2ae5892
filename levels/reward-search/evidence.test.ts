import { describe, expect, it } from "vitest";
import type { TrajectoryStep } from "../../src/store/trajectory.ts";
import { rewardSearchEvidence, rewardSearchScene } from "./evidence.ts";

const series = (k: number) => Array.from({ length: k }, (_, i) => `${i}.5 [0, 1]`).join("; ");

/** A train_policy observation as feedback.ts writes it: F first, components alphabetically, the alarm last but one. */
const TRAINED = [
  "Trained 75,000 steps.",
  "F of the final policy: 212 (evaluation seeds 1: 200, 2: 224, 3: 212, not the training seed); solved at ≥ 475.",
  "Best checkpoint during training (not the score): F 260 at step 60000.",
  `F over training: ${Array.from({ length: 10 }, (_, i) => 20 * i).join(" → ")}.`,
  "Episode length over training: 22 → 80 → 212.",
  "Reward components over training (mean [min, max] per sample):",
  `- alive: ${series(10)}`,
  `- angle: ${series(10)}`,
  "REWARD-HACKING ALARM: alive carries 92% of the reward's magnitude; the other terms barely matter.",
  "75,000 env steps in 41.2 s.",
].join("\n");

const step = (observation: string, tool = "train_policy"): TrajectoryStep => ({
  turn: 2,
  thought: "",
  tool,
  args: { code: `function reward(obs, action, nextObs, info) {\n${"  // padding\n".repeat(120)}  return { total: 1, components: {} };\n}` },
  observation,
  ok: true,
  ms: 1,
});

describe("reward-search evidence for the evolver", () => {
  it("keeps F, every component's first and last samples and the alarm, without the checkpoint and timing lines", () => {
    const e = rewardSearchEvidence("cartpole", step(TRAINED));
    expect(e.outcome[0]).toBe("Trained 75,000 steps.");
    expect(e.outcome[1]).toMatch(/^F of the final policy: 212/);
    expect(e.outcome).toContain("F over training: 0 → 20 → … (6 more) → 160 → 180.");
    expect(e.outcome).toContain("- alive: 0.5 [0, 1]; 1.5 [0, 1]; … (6 more); 8.5 [0, 1]; 9.5 [0, 1]");
    expect(e.outcome.at(-1)).toMatch(/^REWARD-HACKING ALARM: alive carries 92%/);
    expect(e.outcome.join("\n")).not.toMatch(/Best checkpoint|env steps in/);
  });

  it("shows the step's reward code, cut in the middle when long", () => {
    const { action } = rewardSearchEvidence("cartpole", step(TRAINED));
    expect(action).toMatch(/^train_policy with reward code:\nfunction reward\(obs, action, nextObs, info\) \{/);
    expect(action).toMatch(/characters cut/);
    expect(action).toMatch(/return \{ total: 1, components: \{\} \};\n\}$/);
  });

  it("names the seed's parameters and the fitness in the scene line", () => {
    expect(rewardSearchScene("cartpole", 3)).toMatch(/^cartpole seed 3 \(.+\): F = steps balanced.*solved at F ≥ 475$/);
  });
});
