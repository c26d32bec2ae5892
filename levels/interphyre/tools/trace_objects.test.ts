import { describe, expect, it } from "vitest";
import { call, errorOf, OBSERVATION_MAX_CHARS, resultOf, solvedSession } from "../../../test/support/tool-session.ts";

interface Trace {
  object: string;
  waypoints: { step: number; x: number; y: number }[];
  peak: { y: number; step: number };
  lowest: { y: number; step: number };
  max_speed: { speed: number; step: number };
  angle_range_deg: [number, number];
}
interface TraceResult {
  success: boolean;
  steps: number;
  traces: Trace[];
}

describe("trace_objects", () => {
  it("samples every k steps from the start to the end of the run, and matches simulate_partial there", () => {
    const { session, solution, successStep } = solvedSession("catapult");
    const out = call(session, "trace_objects", { ...solution, objects: ["green_ball", "red_ball"], every: 40 });
    const r = resultOf<TraceResult>(out);
    expect(r).toMatchObject({ success: true, steps: successStep });
    const [green, red] = r.traces;
    const expectedSteps = [...Array.from({ length: Math.floor(successStep / 40) + 1 }, (_, i) => i * 40)];
    if (successStep % 40 !== 0) expectedSteps.push(successStep);
    expect(green!.waypoints.map((w) => w.step)).toEqual(expectedSteps);
    const start = session.instance.scene.green_ball!;
    expect(green!.waypoints[0]).toMatchObject({ x: expect.closeTo(start.x, 3), y: expect.closeTo(start.y, 3) });
    expect(red!.waypoints[0]).toMatchObject({ x: expect.closeTo(solution.x, 3), y: expect.closeTo(solution.y, 3) });
    const at120 = resultOf<{ objects: Record<string, { x: number; y: number }> }>(call(session, "simulate_partial", { ...solution, stop_step: 120 }));
    const w120 = green!.waypoints.find((w) => w.step === 120)!;
    expect(w120.x).toBeCloseTo(at120.objects.green_ball!.x, 3);
    expect(w120.y).toBeCloseTo(at120.objects.green_ball!.y, 3);
    expect(out.observation.length).toBeLessThan(OBSERVATION_MAX_CHARS);
  });

  it("reports extrema that bound every waypoint", () => {
    const { session, solution } = solvedSession("catapult");
    const r = resultOf<TraceResult>(call(session, "trace_objects", { ...solution, objects: ["green_ball", "gray_platform", "basket", "red_ball"], every: 7 }));
    for (const t of r.traces) {
      const ys = t.waypoints.map((w) => w.y);
      expect(t.peak.y).toBeGreaterThanOrEqual(Math.max(...ys));
      expect(t.lowest.y).toBeLessThanOrEqual(Math.min(...ys));
      expect(t.angle_range_deg[0]).toBeLessThanOrEqual(t.angle_range_deg[1]);
      expect(t.max_speed.speed).toBeGreaterThanOrEqual(0);
    }
    // The catapult flings the green ball upward from its start on the arm.
    const green = r.traces[0]!;
    expect(green.peak.y).toBeGreaterThan(session.instance.scene.green_ball!.y);
  });

  it("stops at `steps` and keeps the observation short even with many waypoints", () => {
    const { session, solution } = solvedSession("catapult");
    const out = call(session, "trace_objects", { ...solution, objects: ["green_ball", "gray_platform", "basket", "blue_ball"], every: 1, steps: 300 });
    const r = resultOf<TraceResult>(out);
    expect(r.steps).toBe(300);
    expect(r.traces[0]!.waypoints).toHaveLength(301);
    expect(out.observation.length).toBeLessThan(OBSERVATION_MAX_CHARS);
    expect(session.lastContacts!.events.every((e) => e.step <= 300)).toBe(true);
  });

  it("rejects unknown objects, too many objects and a bad step count", () => {
    const { session, solution } = solvedSession("catapult");
    expect(errorOf(call(session, "trace_objects", { ...solution, objects: ["green"] }))).toMatch(/unknown object 'green'; known: /);
    expect(errorOf(call(session, "trace_objects", { ...solution, objects: [] }))).toMatch(/objects:/);
    expect(errorOf(call(session, "trace_objects", { ...solution, objects: ["a", "b", "c", "d", "e"] }))).toMatch(/objects:/);
    expect(errorOf(call(session, "trace_objects", { ...solution, objects: ["green_ball"], every: 0 }))).toMatch(/every:/);
    expect(errorOf(call(session, "trace_objects", { ...solution, objects: ["green_ball"], steps: session.horizon + 1 }))).toMatch(/steps=/);
  });

  it("is deterministic", () => {
    const { session, solution } = solvedSession("down_to_earth");
    const args = { ...solution, objects: ["green_ball"] };
    const first = call(session, "trace_objects", args);
    expect(first.ok).toBe(true);
    expect(call(solvedSession("down_to_earth").session, "trace_objects", args)).toStrictEqual(first);
  });
});
