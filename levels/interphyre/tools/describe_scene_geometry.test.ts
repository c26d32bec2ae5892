import { describe, expect, it } from "vitest";
import { createInstance } from "../instance.ts";
import { listLevels } from "../levels/index.ts";
import type { BarObject } from "../world/scene.ts";
import { InterphyreSession } from "./interphyre-tool.ts";
import type { SceneLayout } from "./scene-layout.ts";
import { call, OBSERVATION_MAX_CHARS, resultOf } from "../../../test/support/tool-session.ts";

const layoutOf = (level: string, seed: number) => {
  const session = new InterphyreSession(createInstance(level, seed));
  const out = call(session, "describe_scene_geometry");
  return { scene: session.instance.scene, layout: resultOf<SceneLayout>(out), observation: out.observation, session };
};

describe("describe_scene_geometry", () => {
  it("finds the catapult's arm balanced on the gray ball, with the green ball resting on the arm", () => {
    const { scene, layout, observation } = layoutOf("catapult", 4);
    const support = (name: string) => layout.supports.find((s) => s.object === name)!;
    expect(support("green_ball").rests_on).toEqual(["gray_platform"]);
    expect(support("gray_platform").rests_on).toEqual(["gray_ball"]);
    expect(support("gray_ball").rests_on).toEqual(["black_platform"]);
    // catapult.ts centres the arm over the pivot ball.
    const arm = scene.gray_platform as BarObject;
    expect(layout.pivots).toHaveLength(1);
    expect(layout.pivots[0]).toMatchObject({ bar: "gray_platform", on: "gray_ball" });
    expect(layout.pivots[0]!.point[0]).toBeCloseTo(scene.gray_ball!.x, 3);
    expect(layout.pivots[0]!.left_arm + layout.pivots[0]!.right_arm).toBeCloseTo(arm.length, 3);
    expect(observation).toContain("gray_platform on gray_ball");
  });

  it("measures the goal pair from the centres and the surfaces", () => {
    const { scene, layout } = layoutOf("catapult", 4);
    const [green, blue] = [scene.green_ball!, scene.blue_ball!];
    expect(layout.goal.objects).toEqual(["green_ball", "blue_ball"]);
    expect(layout.goal.centre_dx).toBeCloseTo(green.x - blue.x, 3);
    expect(layout.goal.centre_dy).toBeCloseTo(green.y - blue.y, 3);
    if (green.type !== "ball" || blue.type !== "ball") throw new Error("catapult's goal objects are balls");
    expect(layout.goal.surface_gap).toBeCloseTo(Math.hypot(green.x - blue.x, green.y - blue.y) - green.radius - blue.radius, 3);
  });

  it("reports the hole of mind_the_gap as a horizontal gap of its width", () => {
    const { layout, observation } = layoutOf("mind_the_gap", 2);
    const hole = layout.static_gaps.smallest.find((g) => [g.a, g.b].sort().join() === "left_platform,right_platform")!;
    expect(hole).toMatchObject({ direction: "horizontal" });
    expect(hole.gap).toBeCloseTo(1.15, 3); // HOLE_WIDTH in mind_the_gap.ts
    expect(observation).toMatch(/left_platform ↔ right_platform: 1\.15 m horizontal/);
  });

  it("says what a falling object is directly above, and how far", () => {
    const { scene, layout } = layoutOf("down_to_earth", 5);
    const green = scene.green_ball!;
    const platform = scene.platform as BarObject;
    if (green.type !== "ball") throw new Error("down_to_earth's green object is a ball");
    const s = layout.supports.find((x) => x.object === "green_ball")!;
    expect(s.rests_on).toEqual([]);
    expect(s.directly_above?.object).toBe("platform");
    expect(s.directly_above!.clearance).toBeCloseTo(green.y - green.radius - (platform.y + platform.thickness / 2), 3);
  });

  it("finds the seesaw beam on its fulcrum", () => {
    const { layout } = layoutOf("seesaw", 1);
    expect(layout.pivots.map((p) => [p.bar, p.on])).toEqual([["blue_beam", "fulcrum"]]);
  });

  it.each(listLevels())("%s: bounded, deterministic, and simulates nothing", (level) => {
    const a = layoutOf(level, 0);
    expect(a.observation.length).toBeLessThan(OBSERVATION_MAX_CHARS);
    expect(a.session.lastContacts).toBeUndefined();
    expect(layoutOf(level, 0).layout).toStrictEqual(a.layout);
  });
});
