import { describe, expect, it } from "vitest";
import { call, errorOf, missPlacement, OBSERVATION_MAX_CHARS, resultOf, solvedSession } from "../../../test/support/tool-session.ts";

interface FinishResult {
  committed: boolean;
  success: boolean;
  step: number;
  action: { x: number; y: number; radius: number };
}

describe("finish", () => {
  it("commits a certified solution and reports its success step", () => {
    const { session, solution, successStep } = solvedSession("catapult");
    const out = call(session, "finish", solution);
    expect(resultOf<FinishResult>(out)).toEqual({ committed: true, success: true, step: successStep, action: solution });
    expect(out.observation).toMatch(new RegExp(`^Committed .*: SUCCESS at step ${successStep}\\.$`));
    expect(session.lastContacts?.action).toEqual(solution);
  });

  it("commits a failing placement as a failure at the horizon", () => {
    const { session } = solvedSession("down_to_earth", 0, 700);
    const out = call(session, "finish", missPlacement(session));
    expect(resultOf<FinishResult>(out)).toMatchObject({ committed: true, success: false, step: 700 });
    expect(out.observation).toMatch(/^Committed .*: FAILURE/);
    expect(out.observation.length).toBeLessThan(OBSERVATION_MAX_CHARS);
  });

  it("agrees with simulate_action at the session horizon", () => {
    const { session, solution } = solvedSession("dive_bomb", 1);
    const moved = { ...solution, x: solution.x + 0.05 };
    const sim = resultOf<{ success: boolean; step: number }>(call(session, "simulate_action", moved));
    expect(resultOf<FinishResult>(call(session, "finish", moved))).toMatchObject({ success: sim.success, step: sim.step });
  });

  it("does not commit an invalid placement", () => {
    const { session } = solvedSession("down_to_earth");
    const green = session.instance.scene.green_ball!;
    expect(errorOf(call(session, "finish", { x: green.x, y: green.y, radius: 0.4 }))).toMatch(/overlaps green_ball/);
    expect(errorOf(call(session, "finish", { x: 0, y: 0 }))).toMatch(/radius:/);
    expect(session.lastContacts).toBeUndefined();
  });

  it("is deterministic", () => {
    const { session, solution } = solvedSession("down_to_earth");
    const first = call(session, "finish", solution);
    expect(call(solvedSession("down_to_earth").session, "finish", solution)).toStrictEqual(first);
  });
});
