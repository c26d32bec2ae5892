import { defineLevel } from "./define-level.ts";
import { ball, barFromCorner, barLeftRight, barTopBottom } from "../objects.ts";

const STATIC = { color: "black", dynamic: false } as const;

/** Causal chain: the red ball knocks the green ball sideways off the end of the low shelf so it rolls or flies to the purple wall. */
export default defineLevel({
  id: "end_of_line",
  goal: ["green_ball", "purple_wall"],
  description:
    "A static purple wall spans the full height at either the left or the right edge of the world. A wide " +
    "static black shelf sits just above the floor, centred, with two short static black legs slanting " +
    "outward and down from its ends. A dynamic green ball floats a little above the shelf and falls onto " +
    "it when the simulation starts. Goal: the green ball touches the purple wall for 3 seconds.",
  generate: (rng) => {
    const r = rng.uniform(0.25, 0.6);
    const leftWall = rng.choice([true, false]);
    const wallX = leftWall ? -4.9 : 4.9;
    const width = 9.9 - r * 4;
    const shelfY = -4.2;
    const shelf = barLeftRight(-width / 2, width / 2, shelfY, STATIC);
    const xMin = -width / 2 + r + 0.2;
    const xMax = width / 2 - r - 0.2;
    let x = rng.uniform(xMin, xMax);
    const maxDist = 7.0;
    if (Math.abs(x - wallX) > maxDist) {
      x = leftWall ? rng.uniform(xMin, -wallX - maxDist) : rng.uniform(wallX - maxDist, xMax);
    }
    const lift = rng.uniform(0, 1.5);
    const redRadius = rng.uniform(0.25, 0.6);
    return {
      redRadius,
      scene: {
        green_ball: ball(x, shelfY + r + 0.1 + lift, r, { color: "green" }),
        purple_wall: barTopBottom(5.0, -5.0, wallX, { color: "purple", dynamic: false }),
        shelf,
        left_leg: barFromCorner(-width / 2 + 0.05, shelfY + 0.05, 180 + 65, 2.0, STATIC),
        right_leg: barFromCorner(width / 2 - 0.05, shelfY + 0.05, -65, 2.0, STATIC),
      },
    };
  },
});
