import { describe, expect, it } from "vitest";
import { getTask, listTasks } from "../tasks/index.ts";
import { forwardOf } from "./forward.ts";

describe("forward directions", () => {
  it("name one unit vector for every MuJoCo task, and refuse a task without one by name", () => {
    const mujoco = listTasks()
      .map((id) => getTask(id))
      .filter((t) => t.prepare !== undefined);
    expect(mujoco.map((t) => t.id).sort()).toEqual(
      ["ant", "ant_along_y", "half_cheetah", "half_cheetah_backward", "hopper", "hopper_front_flip", "humanoid", "inverted_pendulum", "walker2d"].sort(),
    );
    for (const t of mujoco) expect(Math.hypot(...forwardOf(t.id))).toBe(1);
    expect(forwardOf("ant_along_y")).toEqual([0, 1, 0]);
    expect(forwardOf("half_cheetah_backward")).toEqual([1, 0, 0]);
    expect(() => forwardOf("cartpole")).toThrow(/task cartpole has no forward direction \(have hopper, .*\); add it to trajectory\/forward\.ts/);
  });
});
