import { defineLevel } from "./define-level.ts";
import { ball, bar, barFromCorner } from "../objects.ts";

/** Causal chain: a hard hit lifts the green ball out of the shallow cradle, and it falls to the purple floor. */
export default defineLevel({
  id: "the_cradle",
  goal: ["green_ball", "purple_floor"],
  description:
    "A green ball sits in a shallow V cradle made of two short static black bars that start at the ball's " +
    "lowest point and slope gently up to the left and right, in the middle region of the world below " +
    "mid-height. A static purple floor spans the bottom. Goal: the green ball touches the purple floor for 3 seconds.",
  generate: (rng) => {
    const radius = 0.5;
    const x = rng.uniform(0.2, 0.8) * 10 - 5;
    const y = rng.uniform(0.2, 0.5) * 10 - 5;
    const holderLength = rng.uniform(0.5, 0.75);
    const holderAngle = 5.0;
    const holderY = y - radius;
    const holder = { color: "black", dynamic: false, thickness: 0.2 };
    const redRadius = rng.uniform(0.45, 0.6);
    return {
      redRadius,
      scene: {
        green_ball: ball(x, y, radius, { color: "green" }),
        left_holder: barFromCorner(x, holderY, 180 - holderAngle, holderLength, holder),
        right_holder: barFromCorner(x, holderY, holderAngle, holderLength, holder),
        purple_floor: bar(0, -5 + 0.1, 10, 0, { color: "purple", dynamic: false }),
      },
    };
  },
});
