import { describe, expect, it } from "vitest";
import { createInstance } from "../instance.ts";
import { listLevels } from "../levels/index.ts";
import { InterphyreSession } from "./interphyre-tool.ts";
import { call, OBSERVATION_MAX_CHARS, resultOf } from "../../../test/support/tool-session.ts";

interface LevelState {
  level: string;
  goal: { objects: string[]; hold_seconds: number };
  horizon_steps: number;
  objects: { name: string; x: number; y: number; dynamic: boolean }[];
}

describe("get_level_state", () => {
  it.each(listLevels())("%s: lists every object, the goal and the horizon within the length bound", (level) => {
    const instance = createInstance(level, 0);
    const out = call(new InterphyreSession(instance, 1500), "get_level_state");
    const r = resultOf<LevelState>(out);
    expect(r.goal.objects).toEqual([...instance.goal]);
    expect(r.horizon_steps).toBe(1500);
    expect(r.objects.map((o) => o.name)).toEqual(Object.keys(instance.scene));
    for (const o of r.objects) {
      expect(o.x).toBeCloseTo(instance.scene[o.name]!.x, 4);
      expect(o.dynamic).toBe(instance.scene[o.name]!.dynamic);
      expect(out.observation).toContain(`- ${o.name}: `);
    }
    expect(out.observation.length).toBeLessThan(OBSERVATION_MAX_CHARS);
  });

  it("is deterministic and ignores stray arguments", () => {
    const a = call(new InterphyreSession(createInstance("catapult", 3)), "get_level_state");
    expect(call(new InterphyreSession(createInstance("catapult", 3)), "get_level_state", { foo: 1 })).toStrictEqual(a);
  });
});
