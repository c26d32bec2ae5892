import { describe, expect, it } from "vitest";
import { call, errorOf, missPlacement, OBSERVATION_MAX_CHARS, resultOf, solvedSession } from "../../../test/support/tool-session.ts";

interface LogResult {
  action: { x: number; y: number; radius: number };
  total_events: number;
  matching_events: number;
  events: { step: number; event: "begin" | "end"; a: string; b: string }[];
  truncated: boolean;
}

describe("get_contact_log", () => {
  it("is an error before any simulation has run", () => {
    const { session } = solvedSession("down_to_earth");
    expect(errorOf(call(session, "get_contact_log"))).toMatch(/no simulation has run yet/);
  });

  it("agrees with simulate_action: its first red_ball begin is the rollout's first red_ball contact", () => {
    const { session, solution } = solvedSession("catapult");
    const run = resultOf<{ red_ball_first_contacts: { object: string; step: number }[] }>(call(session, "simulate_action", solution));
    const log = resultOf<LogResult>(call(session, "get_contact_log", { objects: ["red_ball"], limit: 1 }));
    const [first] = log.events;
    expect(first!.event).toBe("begin");
    expect({ object: first!.a === "red_ball" ? first!.b : first!.a, step: first!.step }).toEqual(run.red_ball_first_contacts[0]);
  });

  it("filters by object names, keeps time order and caps the list (default 20)", () => {
    const { session, solution } = solvedSession("catapult");
    resultOf(call(session, "simulate_action", solution));
    const all = session.lastContacts!.events;
    const r = resultOf<LogResult>(call(session, "get_contact_log", { objects: ["green_ball", "left_wall"] }));
    const involved = all.filter((e) => [e.a, e.b].some((n) => n === "green_ball" || n === "left_wall"));
    expect(r.total_events).toBe(all.length);
    expect(r.matching_events).toBe(involved.length);
    expect(r.events).toEqual(involved.slice(0, 20));
    expect(r.truncated).toBe(involved.length > 20);
    const everything = resultOf<LogResult>(call(session, "get_contact_log", { limit: 100 }));
    expect(everything.events).toEqual(all.slice(0, 100));
    expect(everything.events.map((e) => e.step)).toEqual([...everything.events.map((e) => e.step)].sort((p, q) => p - q));
  });

  it("reports the last simulation, whichever tool ran it", () => {
    const { session, solution } = solvedSession("down_to_earth");
    resultOf(call(session, "simulate_action", solution));
    const miss = missPlacement(session);
    resultOf(call(session, "simulate_partial", { ...miss, stop_step: 200 }));
    const r = resultOf<LogResult>(call(session, "get_contact_log", { limit: 100 }));
    expect(r.action).toEqual(miss);
    expect(r.events.every((e) => e.step <= 200)).toBe(true);
  });

  it("rejects unknown names, an empty list and limits outside 1..100", () => {
    const { session, solution } = solvedSession("down_to_earth");
    resultOf(call(session, "simulate_action", solution));
    expect(errorOf(call(session, "get_contact_log", { objects: ["greenball"] }))).toMatch(/unknown object 'greenball'; known: .*green_ball/);
    expect(errorOf(call(session, "get_contact_log", { objects: [] }))).toMatch(/objects:/);
    expect(errorOf(call(session, "get_contact_log", { limit: 101 }))).toMatch(/limit:/);
    expect(errorOf(call(session, "get_contact_log", { limit: 0 }))).toMatch(/limit:/);
  });

  it("stays within the observation bound at the largest limit, and is deterministic", () => {
    const { session, solution } = solvedSession("catapult");
    resultOf(call(session, "simulate_action", solution));
    const out = call(session, "get_contact_log", { limit: 100 });
    expect(out.observation.length).toBeLessThan(OBSERVATION_MAX_CHARS);
    expect(call(session, "get_contact_log", { limit: 100 })).toStrictEqual(out);
  });
});
