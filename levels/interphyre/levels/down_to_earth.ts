import { defineLevel } from "./define-level.ts";
import { ball, barLeftRight, purpleGround } from "../objects.ts";

/** Causal chain: the red ball shoves the green ball off the platform's edge, and it drops to the purple ground. */
export default defineLevel({
  id: "down_to_earth",
  goal: ["green_ball", "purple_ground"],
  description:
    "A static black platform floats at mid-height somewhere across the world, and a green ball starts high " +
    "above its centre, so it falls onto the platform when the simulation starts. A static purple ground " +
    "spans the whole floor. Goal: the green ball touches the purple ground for 3 seconds.",
  generate: (rng) => {
    const width = rng.uniform(1, 7);
    const left = rng.uniform(-5, 5 - width);
    const platformY = rng.uniform(-2, 2);
    const redRadius = rng.uniform(0.3, 0.6);
    const greenRadius = 0.5;
    return {
      redRadius,
      scene: {
        green_ball: ball(left + width / 2, 4.5 - greenRadius, greenRadius, { color: "green" }),
        purple_ground: purpleGround(),
        platform: barLeftRight(left, left + width, platformY, { color: "black", dynamic: false }),
      },
    };
  },
});
