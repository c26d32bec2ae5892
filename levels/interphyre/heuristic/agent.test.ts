import { describe, expect, it } from "vitest";
import { placementOf } from "../action.ts";
import { createInstance } from "../instance.ts";
import { createRng } from "../../../src/util/rng.ts";
import { readCertified } from "../certified-seeds.ts";
import { HeuristicHint, runHeuristicEpisode } from "./agent.ts";
import { Trajectory } from "../../../src/store/trajectory.ts";

/** A fake clock: tool times are then deterministic too, so whole trajectories compare equal. */
const ticking = () => {
  let t = 0;
  return () => (t += 1);
};

const run = (level: string, seed: number, extra: { hints?: HeuristicHint[]; maxTurns?: number; screens?: number } = {}) =>
  runHeuristicEpisode({ instance: createInstance(level, seed), rng: createRng(seed), now: ticking(), ...extra });

const certified = (level: string) => readCertified(level)!.seeds;

const expectConsistent = (t: Trajectory) => {
  expect(Trajectory.parse(t)).toEqual(t);
  expect(t.agent).toBe("heuristic (no LLM)");
  expect(t.model).toBe("none (heuristic)");
  expect(t.usage).toEqual({ input: 0, output: 0, cached: 0, calls: 0, costUsd: 0 });
  expect(t.steps.length).toBeLessThanOrEqual(t.maxTurns);
  expect(t.steps.map((s) => s.turn)).toEqual(t.steps.map((_, i) => i + 1));
  expect(t.turns).toBe(t.success ? t.steps.length : t.maxTurns);
  const last = t.steps.at(-1)!;
  switch (t.stopReason) {
    case "success":
      expect(t.success).toBe(true);
      expect(last.tool).toBe("simulate_action");
      expect(last.observation).toMatch(/^SUCCESS/);
      break;
    case "finish":
      expect(last.tool).toBe("finish");
      expect(t.action).toEqual(last.args);
      break;
    case "budget":
      expect(t.success).toBe(false);
      expect(t.steps.length).toBe(t.maxTurns);
      break;
    case "error":
      throw new Error(`unexpected error stop: ${t.error}`);
  }
};

describe("runHeuristicEpisode", () => {
  it.each(["two_body_problem", "down_to_earth"])("solves a certified %s seed within 25 turns", (level) => {
    const runs = certified(level)
      .slice(0, 3)
      .map(({ seed }) => run(level, seed));
    runs.forEach(expectConsistent);
    expect(runs.some((t) => t.success && t.turns <= 25)).toBe(true);
  });

  it("is deterministic for a given level, seed, rng seed and hints", () => {
    const { seed } = certified("catapult")[0]!;
    expect(run("catapult", seed)).toEqual(run("catapult", seed));
  });

  it("writes a consistent trajectory when it runs out of turns, committing its last candidate with finish", () => {
    const t = run("catapult", certified("catapult")[0]!.seed, { maxTurns: 4 });
    expectConsistent(t);
    expect(t.steps.map((s) => s.tool)).toEqual(["get_level_state", "simulate_partial", "simulate_action", "finish"]);
    expect(t.stopReason).toBe("finish");
  });

  it("solves a seed it otherwise misses when a region hint surrounds a known solution", () => {
    // The first certified catapult seed the agent misses without hints (seed 5 when this was written).
    let plain: Trajectory | undefined;
    const { seed, solution } = certified("catapult").find(({ seed }) => !(plain = run("catapult", seed)).success)!;
    const [x, y, r] = solution;
    const hint: HeuristicHint = { kind: "region", relativeTo: "world", dx: [x - 0.02, x + 0.02], dy: [y - 0.02, y + 0.02], radius: [r, r], weight: 1 };
    const hinted = run("catapult", seed, { hints: [hint] });
    expectConsistent(hinted);
    expect(hinted.success).toBe(true);
    expect(hinted.turns).toBeLessThan(plain!.turns);
    expect(hinted.steps[2]!.thought).toContain("hint 1 region");
  });

  it("takes region offsets relative to the named object, and keeps out of avoid regions", () => {
    const { seed } = certified("two_body_problem")[0]!;
    const plain = run("two_body_problem", seed);
    const won = placementOf(plain.action)!;
    const green = createInstance("two_body_problem", seed).scene.green_ball!;
    const around = (c: number): [number, number] => [c - 0.5, c + 0.5];
    const avoid: HeuristicHint = { kind: "avoid", relativeTo: "green_ball", dx: around(won.x - green.x), dy: around(won.y - green.y), weight: 5 };
    const t = run("two_body_problem", seed, { hints: [avoid] });
    expectConsistent(t);
    const tested = t.steps.filter((s) => s.tool === "simulate_action").map((s) => s.args as { x: number; y: number });
    expect(tested.length).toBeGreaterThan(0);
    for (const a of tested) expect(Math.abs(a.x - won.x) > 0.5 || Math.abs(a.y - won.y) > 0.5).toBe(true);
  });

  it("screens candidates with predict_first_contact when asked to", () => {
    const t = run("tipping_point", certified("tipping_point")[0]!.seed, { screens: 2 });
    expectConsistent(t);
    expect(t.steps.some((s) => s.tool === "predict_first_contact")).toBe(true);
  });

  it("rejects malformed hints at the schema", () => {
    expect(HeuristicHint.safeParse({ kind: "region", relativeTo: "world", dx: [1, 0], dy: [0, 1], weight: 1 }).success).toBe(false);
    expect(HeuristicHint.safeParse({ kind: "avoid", relativeTo: "world", dx: [0, 1], dy: [0, 1], weight: 0 }).success).toBe(false);
  });
});
