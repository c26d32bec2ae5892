import { describe, expect, it } from "vitest";
import { call, missPlacement, solvedSession } from "../../../test/support/tool-session.ts";

describe("simulate_action: radius clipping (docs/spec/interphyre.md §4.2)", () => {
  it("says in its observation that the radius was clipped, as check_placement does", () => {
    const { session } = solvedSession("down_to_earth");
    const out = call(session, "simulate_action", { ...missPlacement(session), radius: 0.01 });
    expect(out.ok, out.observation).toBe(true);
    expect(out.observation).toMatch(/^(SUCCESS|FAILURE)/);
    expect(out.observation).toMatch(/Radius clipped from 0\.01 to 0\.\d+ \(the level's range\)\./);
    expect(call(session, "simulate_action", missPlacement(session)).observation).not.toMatch(/clipped/);
  });
});
