import { describe, expect, it } from "vitest";
import type { TrajectoryStep } from "../../src/store/trajectory.ts";
import { interphyreEvidence } from "./evidence.ts";

const step = (tool: string, args: unknown, observation: string, ok = true): TrajectoryStep => ({ turn: 1, thought: "", tool, args, observation, ok, ms: 1 });

describe("Interphyre evidence for the evolver", () => {
  it("keeps a trace's goal objects with their waypoint lines, in the goal's order, and drops the props'", () => {
    const trace = [
      "Trace, 600 steps simulated (no success within 600 steps); waypoints every 60 steps:",
      "basket: peak y -3.30 @0, lowest y -3.40 @300, max speed 0.20 m/s @100, angle -9.0°..-8.0°",
      "  step: (x, y) 0: (3.50, -3.34) | 60: (3.50, -3.35)",
      "blue_ball: peak y -2.70 @0, lowest y -2.90 @300, max speed 0.30 m/s @120, angle 0.0°..3.0°",
      "  step: (x, y) 0: (3.50, -2.70) | 60: (3.50, -2.80)",
      "green_ball: peak y 1.20 @90, lowest y -3.60 @400, max speed 6.10 m/s @40, angle 0.0°..90.0°",
      "  step: (x, y) 0: (-2.92, -1.76) | 60: (-1.00, 0.80)",
    ].join("\n");
    const e = interphyreEvidence("catapult", step("trace_objects", { x: -1.5, y: 4, radius: 0.5, objects: ["green_ball", "blue_ball", "basket"] }, trace));
    expect(e.action).toBe('trace_objects x=-1.50, y=4.00, radius=0.50, {"objects":["green_ball","blue_ball","basket"]}');
    expect(e.outcome).toEqual([
      "Trace, 600 steps simulated (no success within 600 steps); waypoints every 60 steps:",
      "green_ball: peak y 1.20 @90, lowest y -3.60 @400, max speed 6.10 m/s @40, angle 0.0°..90.0°",
      "step: (x, y) 0: (-2.92, -1.76) | 60: (-1.00, 0.80)",
      "blue_ball: peak y -2.70 @0, lowest y -2.90 @300, max speed 0.30 m/s @120, angle 0.0°..3.0°",
      "step: (x, y) 0: (3.50, -2.70) | 60: (3.50, -2.80)",
    ]);
  });

  it("shows a refused call's error line and a call without a placement by its arguments, each line capped", () => {
    const e = interphyreEvidence("catapult", step("simulate_action", { x: "left" }, `ERROR: invalid placement ${"z".repeat(400)}`, false));
    expect(e.action).toBe('simulate_action {"x":"left"}');
    expect(e.outcome).toHaveLength(1);
    expect(e.outcome[0]!.length).toBeLessThanOrEqual(241);
    expect(interphyreEvidence("catapult", step("(none)", null, "No tool call.", false)).action).toBe("(no tool call)");
  });
});
