import { defineLevel } from "./define-level.ts";
import { ball, barFromCorner, barLeftRight, basket } from "../objects.ts";

const STATIC = { color: "black", dynamic: false } as const;

/** Causal chain: the red ball pushes the green ball along its bar into the hole, where it meets the inverted blue basket that also drops through the hole onto the ramp. */
export default defineLevel({
  id: "falling_into_place",
  goal: ["green_ball", "blue_basket"],
  description:
    "Two static black bars span the world at one height with a 2-wide hole between them near the centre. " +
    "A dynamic blue basket hangs upside down (opening facing down) near the top, centred above the hole, and " +
    "falls when the simulation starts; a long static black ramp rises gently from the bottom-left corner. " +
    "A dynamic green ball rests on the left or the right bar, beside the hole. Goal: the green ball touches " +
    "the blue basket for 3 seconds.",
  generate: (rng) => {
    const barY = rng.uniform(-2, 1);
    const scale = 0.75;
    const halfWidth = (1.083 * scale * 1.25 + 2 * 0.175) / 2;
    const holeWidth = 2.0;
    const maxOffset = holeWidth / 2 - halfWidth - 0.1;
    const holeCentre = rng.uniform(-maxOffset, maxOffset);
    const holeLeft = holeCentre - holeWidth / 2;
    const holeRight = holeCentre + holeWidth / 2;
    const r = 0.5;
    const x = rng.random() < 0.5 ? rng.uniform(-4.5, holeLeft - r) : rng.uniform(holeRight + r, 4.5);
    const redRadius = rng.uniform(0.3, 0.6);
    return {
      redRadius,
      scene: {
        green_ball: ball(x, barY + 0.1 + r, r, { color: "green" }),
        blue_basket: basket(0, 4.3, scale, { color: "blue", angle: 180 }),
        left_bar: barLeftRight(-5, holeLeft, barY, STATIC),
        right_bar: barLeftRight(holeRight, 5, barY, STATIC),
        bottom_ramp: barFromCorner(-5, -5, 10, 11, STATIC),
      },
    };
  },
});
