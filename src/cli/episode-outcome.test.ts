import { describe, expect, it } from "vitest";
import type { Trajectory } from "../store/trajectory.ts";
import { episodeOutcome } from "./episode-outcome.ts";

const base = {
  schemaVersion: 1,
  level: "catapult",
  seed: 56,
  agent: "react",
  model: "m",
  success: false,
  maxTurns: 25,
  action: null,
  usage: { input: 0, output: 0, cached: 0, calls: 0, costUsd: 0 },
  wallMs: 11_800,
} as unknown as Trajectory;

describe("hexa episode's summary line", () => {
  it("calls an endpoint that could not be reached a model failure, with the turns it got through, not 25 turns used", () => {
    const t = { ...base, turns: 25, steps: [], stopReason: "error", error: "http://127.0.0.1:9/v1: Connection error." } as Trajectory;
    const line = episodeOutcome(t, "cost unknown");
    expect(line).toMatch(
      /^MODEL FAILURE \(http:\/\/127\.0\.0\.1:9\/v1: Connection error\.\); agent react, model m; ended by the endpoint after 0 of 25 turns, no outcome counted;/,
    );
    expect(line).not.toContain("turns counted");
  });

  it("counts the turns of a failure the method made", () => {
    const t = { ...base, turns: 25, steps: [], stopReason: "budget" } as Trajectory;
    expect(episodeOutcome(t, "$0.0000")).toMatch(/^FAILURE \(budget\); agent react, model m; turns counted 25\/25; tokens in 0/);
  });
});
