import { defineLevel } from "./define-level.ts";
import { ball } from "../objects.ts";

/** Causal chain: the red ball pushes or carries the green ball until it rests against the blue ball. */
export default defineLevel({
  id: "two_body_problem",
  goal: ["green_ball", "blue_ball"],
  description:
    "A green ball and a blue ball float at the same height, green to the left of blue with a gap between " +
    "them; both fall to the floor when the simulation starts. Goal: the green ball touches the blue ball " +
    "for 3 seconds.",
  generate: (rng) => {
    const rGreen = rng.uniform(0.3, 0.6);
    const rBlue = rng.uniform(0.3, 0.6);
    const redRadius = rng.uniform(0.3, 0.6);
    const bottom = rng.uniform(-3, 3);
    const gap = Math.max(rGreen, rBlue);
    const xGreen = rng.uniform(-4.5 + rGreen, 4.5 - 2 * rBlue - gap - rGreen);
    const xBlue = rng.uniform(xGreen + rGreen + gap + rBlue, 4.5 - rBlue);
    return {
      redRadius,
      scene: {
        green_ball: ball(xGreen, bottom + rGreen, rGreen, { color: "green" }),
        blue_ball: ball(xBlue, bottom + rBlue, rBlue, { color: "blue" }),
      },
    };
  },
});
