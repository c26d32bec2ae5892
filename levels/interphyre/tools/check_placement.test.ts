import { describe, expect, it } from "vitest";
import { call, errorOf, OBSERVATION_MAX_CHARS, resultOf, solvedSession } from "../../../test/support/tool-session.ts";

interface PlacementResult {
  valid: boolean;
  field?: string;
  distance?: number;
  action: { x: number; y: number; radius: number };
}

describe("check_placement", () => {
  it("accepts a certified solution without simulating it", () => {
    const { session, solution } = solvedSession("catapult");
    const out = call(session, "check_placement", solution);
    expect(resultOf<PlacementResult>(out)).toEqual({ valid: true, action: solution });
    expect(out.observation).toMatch(/^VALID placement/);
    expect(session.lastContacts).toBeUndefined();
  });

  it("names the field and how far it is out of bounds", () => {
    const { session } = solvedSession("down_to_earth");
    const r = resultOf<PlacementResult>(call(session, "check_placement", { x: 5.2, y: 0, radius: 0.5 }));
    // The ball must lie inside the world: x ≤ 5 − radius, so x = 5.2 is 0.7 too far right.
    expect(r).toMatchObject({ valid: false, field: "x", distance: 0.7 });
  });

  it("names the object the ball overlaps", () => {
    const { session } = solvedSession("down_to_earth");
    const green = session.instance.scene.green_ball!;
    const out = call(session, "check_placement", { x: green.x + 0.6, y: green.y, radius: 0.2 });
    // Centres 0.6 apart, radii 0.5 + 0.2: an overlap of 0.1.
    expect(resultOf<PlacementResult>(out)).toMatchObject({ valid: false, field: "green_ball", distance: 0.1 });
    expect(out.observation).toMatch(/^INVALID placement .*overlaps green_ball/);
  });

  it("clips the radius into the level's range and says so", () => {
    const { session } = solvedSession("down_to_earth");
    const [, max] = session.instance.bounds.radius;
    const out = call(session, "check_placement", { x: -3, y: -3, radius: 9 });
    expect(resultOf<PlacementResult>(out).action.radius).toBe(max);
    expect(out.observation).toContain("radius clipped from 9.00");
  });

  it("rejects arguments that are not numbers", () => {
    const { session } = solvedSession("down_to_earth");
    expect(errorOf(call(session, "check_placement", { x: "left", y: 0, radius: 0.5 }))).toMatch(/x:/);
    expect(errorOf(call(session, "check_placement", { x: 0, y: Number.POSITIVE_INFINITY, radius: 0.5 }))).toMatch(/y:/);
    expect(errorOf(call(session, "check_placement", { x: 0, y: 0 }))).toMatch(/radius:/);
  });

  it("is deterministic and short", () => {
    const { session } = solvedSession("down_to_earth");
    const args = { x: 5.2, y: 0, radius: 0.5 };
    const first = call(session, "check_placement", args);
    expect(call(session, "check_placement", args)).toStrictEqual(first);
    expect(first.observation.length).toBeLessThan(OBSERVATION_MAX_CHARS);
  });
});
