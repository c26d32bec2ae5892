import { basketSizeFromScale } from "../world/basket-geometry.ts";
import { defineLevel } from "./define-level.ts";
import { ball, bar, barEnds, barFromEndpoints, basket } from "../objects.ts";

const STATIC = { color: "black", dynamic: false } as const;

/** Causal chain: the red ball shoves the green ball down the tilted platform or nudges the gray basket so the green ball drops onto the blue ball in it. */
export default defineLevel({
  id: "just_a_nudge",
  goal: ["green_ball", "blue_ball"],
  description:
    "A dynamic gray basket stands on the floor slightly left of centre with a dynamic blue ball inside it. " +
    "Higher up, a static black platform floats slightly right of centre, tilted a few degrees so its right " +
    "end is higher, and a small dynamic green ball starts about 1.75 above it over its left part and falls " +
    "onto it; two static black ramps fill the bottom corners. Goal: the green ball touches the blue ball for " +
    "3 seconds.",
  generate: (rng) => {
    const greenR = rng.uniform(0.2, 0.35);
    const scale = rng.uniform(0.8, 1.2);
    const rampAngle = rng.uniform(45, 60);
    const ballOffset = rng.uniform(0.2, 0.5);
    const platformX = rng.uniform(0.6, 1.0);
    const platformAngle = rng.uniform(1, 9);

    const rampHeight = 2.0;
    const run = rampHeight / Math.tan((rampAngle * Math.PI) / 180);
    const size = basketSizeFromScale(scale);
    const basketTop = -5 + 0.1 + size.height + size.floor_thickness;
    const platformLength = 3.5;
    const platformY = Math.max(-2.0, basketTop + greenR * 4) + platformLength / 2;
    const platform = bar(platformX, platformY, platformLength, platformAngle, STATIC);
    const greenX = barEnds(platform).left + ballOffset + greenR;
    const greenY = platformY + platformLength / 2 + greenR;
    const basketX = Math.min(1, Math.max(-1, greenX - rng.uniform(0.3, 0.8)));
    const blueR = 0.4 + scale * 0.08;
    return {
      redRadius: 0.5,
      scene: {
        green_ball: ball(greenX, greenY, greenR, { color: "green" }),
        left_ramp: barFromEndpoints(-5, -5 + rampHeight, -5 + run, -5, STATIC),
        right_ramp: barFromEndpoints(5, -5 + rampHeight, 5 - run, -5, STATIC),
        blue_ball: ball(basketX, -5 + 0.6 + blueR, blueR, { color: "blue" }),
        platform,
        basket: basket(basketX, -5 + 0.1, scale, { color: "gray", angle: 0, anchor: "bottom_center" }),
      },
    };
  },
});
