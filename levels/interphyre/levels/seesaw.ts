import { defineLevel } from "./define-level.ts";
import { ball, bar, barEnds, barLeftRight, barTopBottom } from "../objects.ts";

const FULCRUM_R = 0.5;
const GREEN_R = 0.5;
const GUARD_OFFSET = 1.5;
const GUARD_LENGTH = 2.0;

/** Causal chain: the red ball nudges the falling green ball, or tips the blue beam, so that the green ball lands on and stays on the beam. */
export default defineLevel({
  id: "seesaw",
  goal: ["green_ball", "blue_beam"],
  description:
    "A static black floor spans the world with a static black ball (the fulcrum, r 0.5) resting on it; a " +
    "dynamic blue beam lies level on top of the fulcrum. A dynamic green ball (r 0.5) starts high up, just " +
    "beyond one end of the beam, and falls when the simulation starts. Two short static black vertical " +
    "guards stand 1.5 outside each end of the beam. Goal: the green ball touches the blue beam for 3 seconds.",
  generate: (rng) => {
    const floorY = rng.uniform(-4, 1);
    const fulcrumX = rng.uniform(-2.5, 1.5);
    const beamLength = rng.uniform(3, 4.5);
    const overhang = rng.uniform(0.1, 0.3);
    const greenX = rng.random() < 0.5 ? fulcrumX - beamLength / 2 - GREEN_R + overhang : fulcrumX + beamLength / 2 + GREEN_R - overhang;

    const black = { color: "black", dynamic: false };
    const fulcrumY = floorY + 0.1 + FULCRUM_R;
    const blueBeam = bar(fulcrumX, fulcrumY + FULCRUM_R + 0.1, beamLength, 0, { color: "blue" });
    const greenY = 4.5 - GREEN_R;
    const guardBottom = Math.max(floorY + 0.1, greenY - GREEN_R - 1.5 - GUARD_LENGTH);
    const guardTop = guardBottom + GUARD_LENGTH;
    const beamEnds = barEnds(blueBeam);

    const redRadius = rng.uniform(0.3, 0.6);
    return {
      redRadius,
      scene: {
        floor: barLeftRight(-5, 5, floorY, black),
        fulcrum: ball(fulcrumX, fulcrumY, FULCRUM_R, black),
        blue_beam: blueBeam,
        green_ball: ball(greenX, greenY, GREEN_R, { color: "green" }),
        left_guard: barTopBottom(guardTop, guardBottom, beamEnds.left - GUARD_OFFSET, black),
        right_guard: barTopBottom(guardTop, guardBottom, beamEnds.right + GUARD_OFFSET, black),
      },
    };
  },
});
