import { defineLevel } from "./define-level.ts";
import { ball, basket, purpleGround } from "../objects.ts";

/** Causal chain: the red ball deflects the falling green ball or tips the basket, so green reaches the ground. */
export default defineLevel({
  id: "basket_case",
  goal: ["green_ball", "purple_ground"],
  description:
    "A dynamic gray basket stands on or floats just above the static purple ground, and a green ball starts " +
    "high up directly above the basket's centre, so it falls into the basket when the simulation starts. " +
    "Goal: the green ball touches the purple ground for 3 seconds.",
  generate: (rng) => {
    const scale = rng.uniform(0.75, 2.0);
    const basketX = rng.uniform(-3.5, 3.5);
    const basketY = -4.8 + rng.uniform(0, 2.0);
    const greenY = rng.uniform(2.0, 4.0);
    const redRadius = rng.uniform(0.3, 0.6);
    return {
      redRadius,
      scene: {
        green_ball: ball(basketX, greenY, 0.5, { color: "green" }),
        purple_ground: purpleGround(),
        basket: basket(basketX, basketY, scale, { color: "gray" }),
      },
    };
  },
});
