import { z } from "zod";
import { WORLD_MAX, WORLD_MIN } from "../world/constants.ts";
import { defineInterphyreTool } from "./interphyre-tool.ts";
import { n, round } from "./common.ts";
import { objectLine, ROLE_OF_COLOR, sizeOf } from "./describe-object.ts";

export default defineInterphyreTool({
  name: "get_level_state",
  description:
    "List every object of the level (name, colour and role, type, position, size, static or dynamic), the world " +
    "and action bounds, and the goal (which pair must touch for 3 seconds).",
  input: z.object({}),
  run: (session) => {
    const { instance: inst } = session;
    const objects = Object.entries(inst.scene).map(([name, o]) => ({
      name,
      color: o.color,
      role: ROLE_OF_COLOR[o.color] ?? "object",
      type: o.type,
      dynamic: o.dynamic,
      x: round(o.x),
      y: round(o.y),
      ...sizeOf(o),
    }));
    const b = inst.bounds;
    const result = {
      level: inst.level,
      seed: inst.seed,
      goal: { objects: [...inst.goal], hold_seconds: 3 },
      // Range names, not {x, y}: an {x, y} literal holding non-numbers slows every planck rollout in the
      // process about threefold (V8 generalises the field representation planck's vectors share).
      world: { x_range: [WORLD_MIN, WORLD_MAX], y_range: [WORLD_MIN, WORLD_MAX] },
      action_bounds: { x_range: [...b.x], y_range: [...b.y], radius_range: [...b.radius] },
      default_radius: round(inst.defaultRadius),
      horizon_steps: session.horizon,
      objects,
    };
    const observation = [
      `Level ${inst.level} (seed ${inst.seed}). Goal: ${inst.goal[0]} touches ${inst.goal[1]} for 3 s within ${session.horizon} steps (60 steps = 1 s).`,
      `World x,y in [${WORLD_MIN}, ${WORLD_MAX}], y up, gravity down. Red ball: x in [${n(b.x[0], 1)}, ${n(b.x[1], 1)}], y in [${n(b.y[0], 1)}, ${n(b.y[1], 1)}], radius in [${b.radius[0]}, ${b.radius[1]}] (level default ${n(inst.defaultRadius)}); it must not touch any object.`,
      "Objects:",
      ...Object.entries(inst.scene).map(([name, o]) => `- ${objectLine(name, o)}`),
    ].join("\n");
    return { result, observation };
  },
});
