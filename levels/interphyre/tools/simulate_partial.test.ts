import { describe, expect, it } from "vitest";
import { call, errorOf, OBSERVATION_MAX_CHARS, resultOf, solvedSession } from "../../../test/support/tool-session.ts";

interface PartialResult {
  success: boolean;
  step: number;
  objects: Record<string, { x: number; y: number; vx: number; vy: number; dynamic: boolean }>;
  touching: string[];
}

describe("simulate_partial", () => {
  it("stops at stop_step with the same state a full rollout has at that step", () => {
    const { session, solution, successStep } = solvedSession("catapult");
    const stop = Math.floor(successStep / 2);
    const out = call(session, "simulate_partial", { ...solution, stop_step: stop });
    const r = resultOf<PartialResult>(out);
    expect(r).toMatchObject({ success: false, step: stop });
    expect(out.observation).toMatch(new RegExp(`^State at step ${stop}`));
    const full = resultOf<{ final: Record<string, unknown> }>(call(session, "simulate_action", { ...solution, steps: stop }));
    const dynamic = Object.fromEntries(Object.entries(r.objects).filter(([, o]) => o.dynamic));
    expect(dynamic).toStrictEqual(full.final);
    expect(Object.keys(r.objects).sort()).toEqual([...Object.keys(session.instance.scene), "red_ball"].sort());
  });

  it("stops at success when that comes before stop_step", () => {
    const { session, solution, successStep } = solvedSession("down_to_earth");
    const out = call(session, "simulate_partial", { ...solution, stop_step: session.horizon });
    expect(resultOf<PartialResult>(out)).toMatchObject({ success: true, step: successStep });
    expect(resultOf<PartialResult>(out).touching).toContain("green_ball|purple_ground");
    expect(out.observation).toMatch(new RegExp(`^SUCCESS at step ${successStep}`));
    expect(out.observation.length).toBeLessThan(OBSERVATION_MAX_CHARS);
  });

  it("records its contact log, which ends by stop_step", () => {
    const { session, solution } = solvedSession("catapult");
    resultOf(call(session, "simulate_partial", { ...solution, stop_step: 40 }));
    expect(session.lastContacts?.action).toEqual(solution);
    expect(session.lastContacts!.events.length).toBeGreaterThan(0);
    expect(session.lastContacts!.events.every((e) => e.step <= 40)).toBe(true);
  });

  it("rejects a stop_step outside [1, horizon] and invalid placements", () => {
    const { session, solution } = solvedSession("down_to_earth", 0, 600);
    expect(errorOf(call(session, "simulate_partial", { ...solution, stop_step: 601 }))).toMatch(/stop_step=601 must be an integer in \[1, 600\]/);
    expect(errorOf(call(session, "simulate_partial", { ...solution, stop_step: 0 }))).toMatch(/stop_step=0/);
    expect(errorOf(call(session, "simulate_partial", { ...solution, stop_step: 2.5 }))).toMatch(/stop_step:/);
    expect(errorOf(call(session, "simulate_partial", { ...solution }))).toMatch(/stop_step:/);
    expect(errorOf(call(session, "simulate_partial", { x: 0, y: -6, radius: 0.3, stop_step: 10 }))).toMatch(/y=-6 is outside/);
    expect(session.lastContacts).toBeUndefined();
  });

  it("is deterministic", () => {
    const { session, solution } = solvedSession("catapult");
    const args = { ...solution, stop_step: 150 };
    const first = call(session, "simulate_partial", args);
    expect(first.ok).toBe(true);
    expect(call(solvedSession("catapult").session, "simulate_partial", args)).toStrictEqual(first);
  });
});
