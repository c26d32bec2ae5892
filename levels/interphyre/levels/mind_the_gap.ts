import { defineLevel } from "./define-level.ts";
import { ball, barLeftRight, purpleGround } from "../objects.ts";

const HOLE_WIDTH = 1.15;
const GREEN_R = 0.5;
const BLOCKER_R = 0.55;

/** Causal chain: the red ball knocks the gray blocker aside or shoves the green ball sideways so it drops through the hole onto the purple ground. */
export default defineLevel({
  id: "mind_the_gap",
  goal: ["green_ball", "purple_ground"],
  description:
    "Two static black platforms at the same height span the width of the world, separated by a hole about " +
    "1.15 wide. A dynamic green ball (r 0.5) starts high above the platforms and a dynamic gray ball " +
    "(r 0.55) floats above one edge of the hole, partly over the gap; both fall when the simulation " +
    "starts. A static purple ground lies at the bottom. Goal: the green ball touches the purple ground for 3 seconds.",
  generate: (rng) => {
    const holeLeft = rng.uniform(-2.1, 1.1);
    const holeRight = holeLeft + HOLE_WIDTH;
    const platformY = rng.uniform(-3.5, 1.0);
    const blockLeft = rng.choice([true, false]);

    const minDist = Math.max(1.0, 0.5 - platformY - BLOCKER_R);
    const maxDist = Math.min(3.0, 3.0 - platformY - BLOCKER_R);
    const dist = minDist > maxDist ? minDist : rng.uniform(minDist, maxDist);
    const blockerY = platformY + dist + BLOCKER_R;
    const blockerX = blockLeft ? holeLeft + 0.25 + BLOCKER_R : holeRight - 0.25 - BLOCKER_R;

    let greenX = 0.0;
    if (greenX - GREEN_R >= holeLeft && greenX + GREEN_R <= holeRight) greenX = holeLeft - GREEN_R - 0.1;

    const platform = { color: "black", dynamic: false };
    return {
      redRadius: 0.5,
      scene: {
        green_ball: ball(greenX, 3.5, GREEN_R, { color: "green" }),
        blocking_ball: ball(blockerX, blockerY, BLOCKER_R, { color: "gray" }),
        purple_ground: purpleGround(),
        left_platform: barLeftRight(-5, holeLeft, platformY, platform),
        right_platform: barLeftRight(holeRight, 5, platformY, platform),
      },
    };
  },
});
