import { defineLevel } from "./define-level.ts";
import { ball, bar, barEnds, basket, pyRound } from "../objects.ts";

const round2 = (v: number): number => pyRound(v, 2);

/** Causal chain: weight on the arm right of the pivot flings the green ball into the basket onto the blue ball. */
export default defineLevel({
  id: "catapult",
  goal: ["green_ball", "blue_ball"],
  description:
    "On the left, a static black platform carries a dynamic gray ball with a dynamic gray plank balanced on " +
    "top of it, and a small green ball rests on the plank's left end; a static black ball hangs from the " +
    "ceiling above. On the right, a dynamic gray basket holding a blue ball sits on a slightly tilted static " +
    "black ledge. Goal: the green ball touches the blue ball for 3 seconds.",
  generate: (rng) => {
    const blackBallX = rng.uniform(-4, -1);
    const platformX = rng.uniform(-2.0, -1.5);
    const platformY = rng.uniform(-4, -2);
    const ledgeAngle = rng.uniform(-10, 10);
    const ledgeY = rng.uniform(-4, -2.5);
    const scale = rng.uniform(0.75, 1.2);
    const redRadius = rng.uniform(0.6, 1.2);
    rng.uniform(-4.5, 4.5);
    rng.uniform(2.0, 4.5);

    const blackBallRadius = 0.4;
    const platform = bar(platformX, platformY, 3, 0, { color: "black", dynamic: false });
    const pivotRadius = 0.7;
    const pivotX = barEnds(platform).left + 3 * pivotRadius;
    const pivotY = platformY + platform.thickness / 2 + pivotRadius;
    const arm = bar(pivotX, pivotY + pivotRadius + 0.1, 4.25, 0, { color: "gray" });
    const greenRadius = 0.2;

    const cosA = Math.cos((ledgeAngle * Math.PI) / 180);
    const basketY = ledgeY + 0.2 / cosA;
    const blueRadius = round2(0.4 * scale);
    return {
      redRadius,
      scene: {
        green_ball: ball(barEnds(arm).left + greenRadius, arm.y + arm.thickness / 2 + greenRadius, greenRadius, {
          color: "green",
        }),
        blue_ball: ball(3.5, basketY + blueRadius + 0.2, blueRadius, { color: "blue" }),
        ledge: bar(3.5, ledgeY, 3 / cosA, ledgeAngle, { color: "black", dynamic: false }),
        basket: basket(3.5, basketY, scale, { angle: ledgeAngle, color: "gray" }),
        black_ball: ball(blackBallX, 5 - blackBallRadius, blackBallRadius, { color: "black", dynamic: false }),
        black_platform: platform,
        gray_ball: ball(pivotX, pivotY, pivotRadius, { color: "gray" }),
        gray_platform: arm,
      },
    };
  },
});
