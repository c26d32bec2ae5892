import { defineLevel } from "./define-level.ts";
import { ball, barFromCorner, barLeftRight } from "../objects.ts";

const MIN_X = -5;
const MAX_X = 5;
const MAX_Y = 5;
const STATIC_BLACK = { color: "black", dynamic: false } as const;

/** Causal chain: the green ball drops through the funnel; the red ball deflects it past the blocker onto the target. */
export default defineLevel({
  id: "the_funnel",
  goal: ["green_ball", "purple_target"],
  description:
    "Two static black bars slope down from the upper left and upper right walls towards the middle, forming a " +
    "funnel with a narrow gap at the centre. A dynamic green ball starts above the funnel at the top of the world. " +
    "The floor is a static purple target strip at one end (left or right) and static black floor elsewhere, with a " +
    "static black blocker slab lying on the floor next to the target. " +
    "Goal: the green ball touches the purple target for 3 seconds.",
  generate: (rng) => {
    const greenRadius = 0.3;
    const greenX = rng.uniform(-1.0, 1.0);
    const redRadius = rng.uniform(0.3, 0.6);

    const funnelAngle = rng.uniform(20.0, 30.0);
    const funnelLength = 4.95;
    const funnelTop = 4.0;
    const leftFunnel = barFromCorner(MIN_X, funnelTop, -funnelAngle, funnelLength, STATIC_BLACK);
    const rightFunnel = barFromCorner(MAX_X, funnelTop, 180 + funnelAngle, funnelLength, STATIC_BLACK);

    const left = rng.choice(["left", "right"] as const) === "left";
    const purpleTarget = left
      ? barLeftRight(MIN_X, -3, -4.9, { color: "purple", dynamic: false })
      : barLeftRight(3, MAX_X, -4.9, { color: "purple", dynamic: false });
    const floor = left ? barLeftRight(-3, MAX_X, -4.9, STATIC_BLACK) : barLeftRight(MIN_X, 3, -4.9, STATIC_BLACK);
    const blocker = left ? barLeftRight(-3, -1, -4.7, STATIC_BLACK) : barLeftRight(1, 3, -4.7, STATIC_BLACK);

    return {
      redRadius,
      scene: {
        green_ball: ball(greenX, MAX_Y - greenRadius, greenRadius, { color: "green" }),
        left_funnel: leftFunnel,
        right_funnel: rightFunnel,
        blocker,
        purple_target: purpleTarget,
        floor,
      },
    };
  },
});
