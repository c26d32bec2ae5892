import { describe, expect, it } from "vitest";
import { TrainerMessage } from "./protocol.ts";

describe("the progress message (docs/trainer-protocol.md)", () => {
  const base = { type: "progress", id: "j1", iteration: 0, steps: 512, fitness: null, episodeLength: null, components: {} };

  it("carries the optional loss diagnostics, any subset of them, null where not finite", () => {
    const losses = { policyLoss: -0.01, valueLoss: 3.2, entropy: 0.68, approxKl: 0.004, clipFrac: 0.03, explainedVariance: null };
    expect(TrainerMessage.parse({ ...base, losses })).toEqual({ ...base, losses });
    expect(TrainerMessage.parse({ ...base, losses: { clipFrac: 0.1 } })).toEqual({ ...base, losses: { clipFrac: 0.1 } });
  });

  it("still parses without them (trainers that predate them), and refuses a non-finite value", () => {
    expect(TrainerMessage.parse(base)).toEqual(base);
    expect(TrainerMessage.safeParse({ ...base, losses: { valueLoss: Infinity } }).success).toBe(false);
  });
});
