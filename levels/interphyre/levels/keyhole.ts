import { defineLevel } from "./define-level.ts";
import { ball, bar } from "../objects.ts";

const STATIC = { color: "black", dynamic: false } as const;

/** Causal chain: the red ball knocks the green ball over the low divider and through the gap under the centre divider to the purple pad on the far side. */
export default defineLevel({
  id: "keyhole",
  goal: ["green_ball", "purple_pad"],
  description:
    "The floor is split into a static purple pad on one half and a static black pad on the other. A static " +
    "black divider hangs from the ceiling at the centre, leaving a gap above the floor, and a short static " +
    "black divider stands on the floor of the black half. A dynamic green ball floats above the black half, " +
    "outside the short divider, and falls when the simulation starts. Goal: the green ball touches the " +
    "purple pad for 3 seconds.",
  generate: (rng) => {
    const padX = rng.choice([-2.5, 2.5]);
    const gapHeight = rng.uniform(2.5, 4.5);
    const gapWidth = rng.uniform(0.5, 1);
    const room = 10;
    const lo = Math.min(gapWidth / 2, gapHeight / 2);
    const hi = Math.max(gapWidth / 2, gapHeight / 2);
    const r = Math.min(rng.uniform(lo, hi) - 0.05, 0.7);
    const side = -Math.sign(padX);
    const dividerX = rng.uniform(2 * r + 0.1, 3.5) * side;
    const dividerLength = Math.min((gapHeight - 3 * r) * rng.uniform(0.75, 0.95), 1.2);
    const dividerY = -5 + dividerLength / 2;
    const offset = rng.uniform(r, (5 - Math.abs(dividerX)) * 0.5);
    const greenX = (Math.abs(dividerX) + offset) * Math.sign(dividerX);
    const greenY = rng.uniform(dividerY + gapHeight / 2, 5);
    const redRadius = rng.uniform(0.3, 0.6);
    return {
      redRadius,
      scene: {
        purple_pad: bar(padX, -4.9, 5, 0, { color: "purple", dynamic: false }),
        black_pad: bar(-padX, -4.9, 5, 0, STATIC),
        top_divider: bar(0, 5 - (room - gapHeight) / 2, room - gapHeight, 90, STATIC),
        bottom_divider: bar(dividerX, dividerY, dividerLength, 90, STATIC),
        green_ball: ball(greenX, greenY, r, { color: "green" }),
      },
    };
  },
});
