import { describe, expect, it } from "vitest";
import { getTask } from "../tasks/index.ts";
import type { PoolJob } from "../trainer/pool.ts";
import type { HelloMessage } from "../trainer/protocol.ts";
import { checkRemoteOutcome } from "./remote-outcome.ts";

const t = getTask("cartpole");
const instance = t.generate(3);
const job: PoolJob = { task: t.id, instance, reward: "r", steps: 1024, seed: instance.trainSeed, evalSeeds: instance.evalSeeds };
const hello: HelloMessage = { type: "hello", protocol: 1, trainer: { name: "hexa-ppo", version: "1" }, tasks: [] };
const result = {
  final: { fitness: 50, perSeed: job.evalSeeds.map((seed) => ({ seed, fitness: 50 })) },
  bestCheckpoint: { fitness: 60, step: 512 },
  components: {},
  episodeLength: [],
  fitnessCurve: [],
  steps: 1024,
  wallMs: 5,
  policy: "/on/the/worker/policy.json",
};
const losses = { updates: 1, policyLoss: 0, valueLoss: 1, entropy: 0.6, approxKl: 0.01, clipFrac: 0, explainedVariance: 0.2 };

describe("checkRemoteOutcome", () => {
  it("keeps a worker's loss summary with its result, and says nothing of one a worker did not send", () => {
    expect(checkRemoteOutcome("j", job, { kind: "result", result, losses }, "w1", hello)).toMatchObject({ losses, result: { policy: "remote:w1" } });
    expect("losses" in checkRemoteOutcome("j", job, { kind: "result", result }, "w1", hello)).toBe(false);
  });

  it("refuses a loss summary that is not one, naming the field", () => {
    expect(() => checkRemoteOutcome("j", job, { kind: "result", result, losses: { ...losses, approxKl: "big" } }, "w1", hello)).toThrow(
      /worker w1's outcome: losses\.approxKl: /,
    );
  });

  it("refuses a result without a loss summary when the job needs one (an older worker), and takes null (none reported)", () => {
    expect(() => checkRemoteOutcome("j", job, { kind: "result", result }, "w1", hello, true)).toThrow(/worker w1's result: losses: missing; /);
    expect(checkRemoteOutcome("j", job, { kind: "result", result, losses: null }, "w1", hello, true)).toMatchObject({ losses: null });
    expect(checkRemoteOutcome("j", job, { kind: "result", result, losses }, "w1", hello, true)).toMatchObject({ losses });
  });

  it("refuses a loss summary past its bounds (more updates than any training makes, a field of its own)", () => {
    expect(() => checkRemoteOutcome("j", job, { kind: "result", result, losses: { ...losses, updates: 1e12 } }, "w1", hello, true)).toThrow(
      /losses\.updates: /,
    );
    expect(() => checkRemoteOutcome("j", job, { kind: "result", result, losses: { ...losses, note: "x".repeat(100) } }, "w1", hello, true)).toThrow(/losses: /);
  });

  it("keeps no checkpoint policy path a worker names: markers when the job keeps its policies, none otherwise", () => {
    const named = { ...result, checkpointPolicies: [{ step: 512, policy: "/etc/passwd" }] };
    expect(checkRemoteOutcome("j", { ...job, keepPolicies: true }, { kind: "result", result: named }, "w1", hello)).toMatchObject({
      result: { checkpointPolicies: [{ step: 512, policy: "remote:w1" }] },
    });
    const out = checkRemoteOutcome("j", job, { kind: "result", result: named }, "w1", hello);
    expect(out.kind === "result" && out.result.checkpointPolicies).toBeUndefined();
  });
});
