import { defineLevel } from "./define-level.ts";
import { ball, bar, barEnds } from "../objects.ts";

const STATIC_BLACK = { color: "black", dynamic: false } as const;

/** Causal chain: the red ball knocks the green ball sideways off the gray ball so it lands on the purple pad. */
export default defineLevel({
  id: "straight_face",
  goal: ["green_ball", "purple_pad"],
  description:
    "A dynamic green ball starts near the top of the world directly above a dynamic gray ball of the same size; " +
    "both fall when the simulation starts. A static purple pad lies on the static black floor, with a short " +
    "static black rim post at each end. Goal: the green ball touches the purple pad for 3 seconds.",
  generate: (rng) => {
    const floor = bar(0.0, -4.9, 10.0, 0, STATIC_BLACK);

    const radius = 0.5;
    let ballX = rng.uniform(-4, 4);
    if (ballX - radius >= 2.0) ballX = 1.0;
    const grayY = rng.choice([0.5, 2.5]);

    const padLength = rng.uniform(1.0, 2.0);
    const padX = rng.uniform(-4, 4);
    const padThickness = 0.2;
    const pad = bar(padX, -4.7, padLength, 0, { color: "purple", dynamic: false, thickness: padThickness });
    const padEnds = barEnds(pad);
    const postLength = 0.2;
    const postY = -4.7 + padThickness / 2 + postLength / 2;

    const redRadius = rng.uniform(0.6, 1.2);
    rng.uniform(-4.5, 4.5);
    rng.uniform(2.0, 4.5);

    return {
      redRadius,
      scene: {
        green_ball: ball(ballX, 4.5, radius, { color: "green" }),
        gray_ball: ball(ballX, grayY, radius, { color: "gray" }),
        purple_pad: pad,
        pad_left_rim: bar(padEnds.left - padThickness / 2, postY, postLength, 90, STATIC_BLACK),
        pad_right_rim: bar(padEnds.right + padThickness / 2, postY, postLength, 90, STATIC_BLACK),
        floor,
      },
    };
  },
});
