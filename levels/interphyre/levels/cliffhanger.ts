import { defineLevel } from "./define-level.ts";
import { bar, barLeftRight, purpleGround } from "../objects.ts";

/** Causal chain: a hit near the top topples the upright green bar over the platform edge onto the ground. */
export default defineLevel({
  id: "cliffhanger",
  goal: ["green_bar", "purple_ground"],
  description:
    "A static black platform floats below mid-height, and a dynamic green bar stands upright on it 0.1 in " +
    "from the end that faces the wider gap to a side wall. A static black ceiling spans the world 2 above the " +
    "bar's top, and a static purple ground spans the floor. Goal: the green bar touches the purple ground for " +
    "3 seconds.",
  generate: (rng) => {
    const length = rng.uniform(4.0, 6.0);
    const clearance = 0.5;
    const left = rng.uniform(-5 + clearance, 5 - length - clearance);
    const platformY = rng.uniform(-3, 0);
    const barLength = rng.uniform(2.0, 3.0);
    const ceilingY = platformY + 0.1 + barLength + 2.0;
    const offset = 0.1;
    const barX = left + 5 > 5 - (left + length) ? left + offset : left + length - offset;
    const redRadius = rng.uniform(0.3, 0.6);
    return {
      redRadius,
      scene: {
        black_platform: barLeftRight(left, left + length, platformY, { color: "black", dynamic: false }),
        green_bar: bar(barX, platformY + 0.1 + barLength / 2, barLength, 90, { color: "green" }),
        ceiling: barLeftRight(-5, 5, ceilingY, { color: "black", dynamic: false }),
        purple_ground: purpleGround(),
      },
    };
  },
});
