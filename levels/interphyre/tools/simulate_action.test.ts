import { describe, expect, it } from "vitest";
import { call, errorOf, missPlacement, OBSERVATION_MAX_CHARS, resultOf, solvedSession } from "../../../test/support/tool-session.ts";

interface ActionResult {
  success: boolean;
  step: number;
  settled_step: number | null;
  final: Record<string, { x: number; y: number }>;
  red_ball_first_contacts: { object: string; step: number }[];
}

describe("simulate_action", () => {
  it("reports SUCCESS at the certified step for a certified solution", () => {
    const { session, solution, successStep } = solvedSession("down_to_earth");
    const out = call(session, "simulate_action", solution);
    const r = resultOf<ActionResult>(out);
    expect(r.success).toBe(true);
    expect(r.step).toBe(successStep);
    expect(out.observation).toMatch(new RegExp(`^SUCCESS at step ${successStep}:`));
    expect(out.observation.length).toBeLessThan(OBSERVATION_MAX_CHARS);
  });

  it("reports FAILURE when the red ball misses everything that matters", () => {
    const { session } = solvedSession("down_to_earth");
    const out = call(session, "simulate_action", missPlacement(session));
    const r = resultOf<ActionResult>(out);
    expect(r.success).toBe(false);
    expect(r.red_ball_first_contacts.map((c) => c.object)).not.toContain("green_ball");
    expect(out.observation).toMatch(/^FAILURE after \d+ steps/);
  });

  it("keeps the contact log of its rollout for get_contact_log", () => {
    const { session, solution } = solvedSession("catapult");
    const r = resultOf<ActionResult>(call(session, "simulate_action", solution));
    expect(session.lastContacts?.action).toEqual(solution);
    const firstRed = session.lastContacts!.events.find((e) => e.event === "begin" && (e.a === "red_ball" || e.b === "red_ball"))!;
    expect(r.red_ball_first_contacts[0]).toEqual({ object: firstRed.a === "red_ball" ? firstRed.b : firstRed.a, step: firstRed.step });
    expect(Math.max(...session.lastContacts!.events.map((e) => e.step))).toBeLessThanOrEqual(r.step);
  });

  it("rejects invalid placements and arguments with a message that says what to change", () => {
    const { session } = solvedSession("down_to_earth");
    const green = session.instance.scene.green_ball!;
    expect(errorOf(call(session, "simulate_action", { x: 7, y: 0, radius: 0.3 }))).toMatch(/x=7 is outside \[/);
    expect(errorOf(call(session, "simulate_action", { x: green.x, y: green.y, radius: 0.3 }))).toMatch(/overlaps green_ball/);
    expect(errorOf(call(session, "simulate_action", { x: "1", y: 0, radius: 0.3 }))).toMatch(/^invalid arguments for simulate_action: x:/);
    expect(errorOf(call(session, "simulate_action", { x: Number.NaN, y: 0, radius: 0.3 }))).toMatch(/x:/);
    expect(errorOf(call(session, "simulate_action", { x: 0, y: 0, radius: 0.3, steps: session.horizon + 1 }))).toMatch(
      /steps=\d+ must be an integer in \[1, \d+\]/,
    );
    expect(session.lastContacts).toBeUndefined();
  });

  it("is deterministic: the same call in two sessions gives the same outcome", () => {
    const a = solvedSession("catapult");
    const b = solvedSession("catapult");
    const args = { ...a.solution, x: a.solution.x + 0.3 };
    const first = call(a.session, "simulate_action", args);
    expect(first.ok).toBe(true);
    expect(call(b.session, "simulate_action", args)).toStrictEqual(first);
  });
});
