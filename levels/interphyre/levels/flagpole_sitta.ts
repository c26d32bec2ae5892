import { defineLevel } from "./define-level.ts";
import { ball, bar, barFromCorner, pyRound } from "../objects.ts";

const STATIC = { color: "black", dynamic: false } as const;

const round2 = (x: number): number => pyRound(x, 2);

/** Causal chain: the red ball strikes the green ball or the gray pole so the ball rolls off the pole top and drops to the purple ground. */
export default defineLevel({
  id: "flagpole_sitta",
  goal: ["green_ball", "purple_ground"],
  description:
    "A dynamic gray pole stands upright on a static purple ground, with a dynamic green ball balanced on " +
    "its top. A static black ceiling spans the world just above the green ball, and two short static black " +
    "ramps sit at 45 degrees in the bottom corners. Goal: the green ball touches the purple ground for 3 " +
    "seconds.",
  actionBounds: { x: [-4, 4], y: [-4, 3.5], radius: [0.2, 1.25] },
  generate: (rng) => {
    const groundY = -4.9;
    const floorY = groundY + 0.2 / 2;
    const rampLength = round2(rng.uniform(0.5, 2.0));
    const rampHeight = rampLength / Math.sqrt(2);
    const poleX = round2(rng.uniform(-3.0, 3.0));
    const poleLength = round2(rng.uniform(3.0, 5.0));
    const poleY = round2(floorY + poleLength / 2);
    const r = round2(rng.uniform(0.25, 1.25));
    const ballY = poleY + poleLength / 2 + r;
    const redRadius = round2(rng.uniform(0.2, 0.7));
    round2(rng.uniform(1.5, 3.0));
    rng.choice([-1, 1]);
    return {
      redRadius,
      scene: {
        flagpole: bar(poleX, poleY, poleLength, 90.0, { color: "gray", dynamic: true }),
        green_ball: ball(poleX, ballY, r, { color: "green" }),
        ceiling: bar(0.0, ballY + r + 0.1 + 0.1, 10.0, 0.0, STATIC),
        left_ramp: barFromCorner(-5, floorY + rampHeight, 315, rampLength, STATIC),
        right_ramp: barFromCorner(5, floorY + rampHeight, 225, rampLength, STATIC),
        purple_ground: bar(0.0, groundY, 10.0, 0.0, { color: "purple", dynamic: false }),
      },
    };
  },
});
