import { defineLevel } from "./define-level.ts";
import { ball, bar, barEnds, barFromCorner, basket } from "../objects.ts";

const T = 0.2;
const BLACK_BALL_R = 0.3;
const GREEN_R = 0.3;
const RAD = Math.PI / 180;

/** Causal chain: the red ball tips the gray beam or pushes the green ball along it, so the green ball rolls on down the lower ramp into the purple basket. */
export default defineLevel({
  id: "marble_race",
  goal: ["green_ball", "purple_basket"],
  description:
    "A static purple basket stands near the middle of the world, under a static black ceiling; a static black " +
    "ramp and beam run down from its right rim to the wall. On its left, a track descends from the left wall " +
    "to the rim: a short static black ramp, a level dynamic gray beam resting on two static black balls " +
    "(r 0.3) above a static black base bar, then a second short black ramp, with a dynamic green ball (r 0.3) " +
    "floating just above the low end of the leftmost ramp. Goal: the green ball touches the purple basket for 3 seconds.",
  generate: (rng) => {
    const h0 = rng.uniform(0.2, 0.5);
    const w2 = rng.uniform(0.15, 0.3);
    const tilt = rng.uniform(15, 20);
    const scale = 1.0 + (w2 - 0.15) * (10 / 3);
    const basketX = rng.uniform(-1, 1);
    const yFromH0 = -5 + h0 * 10;
    const basketY = rng.uniform(yFromH0, yFromH0 + 1.0);
    const black = { color: "black", dynamic: false, thickness: T };
    const purpleBasket = basket(basketX, basketY, scale, { color: "purple", dynamic: false });

    const a = -tilt;
    const cos = Math.cos(a * RAD);
    const sin = Math.sin(a * RAD);
    const rimY = basketY + purpleBasket.floor_thickness + purpleBasket.height;
    const width = purpleBasket.bottom_width + 2 * purpleBasket.height * Math.tan(5 * RAD);

    const rightSplit = rng.uniform(0.2, 0.5);
    const rightLen = ((5 - (basketX + width / 2)) * rightSplit) / cos;
    const rightX = basketX + width / 2 + rightLen / 2 + T / 2 + 0.005;
    const rightY = rimY + (rightLen / 2) * sin;
    const rightRamp = barFromCorner(rightX - (rightLen / 2) * cos, rightY - (rightLen / 2) * sin, a, rightLen, black);
    const edgeX = rightRamp.x + (rightLen / 2) * cos;
    const edgeY = rightRamp.y + (rightLen / 2) * sin;
    const rightBeamLen = 5 - edgeX - T;
    const rightBeam = bar(edgeX + rightBeamLen / 2 + T / 2, edgeY - 0.005, rightBeamLen, 0, black);

    const leftSpace = basketX - width / 2 + 5;
    const leftSplit = Math.max(rng.uniform(0.3, 0.6), (6 * BLACK_BALL_R + T) / leftSpace);
    const rampLen = (leftSpace * (1 - leftSplit) * 0.5) / cos - T / 2;
    const ramp1X = basketX - width / 2 - rampLen / 2 - T / 2;
    const ramp1Y = rimY - (rampLen / 2) * sin;
    const ramp1 = barFromCorner(ramp1X - (rampLen / 2) * cos, ramp1Y - (rampLen / 2) * sin, a, rampLen, black);

    const beamLen = leftSpace * leftSplit - T;
    const beamX = ramp1.x - (rampLen / 2) * cos - beamLen / 2 - T / 2;
    const beamY = ramp1.y - (rampLen / 2) * sin;
    const leftBeam = bar(beamX, beamY, beamLen, 0, { color: "gray", thickness: T });

    const ramp2X = beamX - beamLen / 2 - rampLen / 2 - T / 2;
    const ramp2Y = beamY - (rampLen / 2) * sin;
    const ramp2 = barFromCorner(ramp2X - (rampLen / 2) * cos, ramp2Y - (rampLen / 2) * sin, a, rampLen, black);

    const beamEnds = barEnds(leftBeam);
    const ballY = beamY - BLACK_BALL_R - T / 2;
    const blackBall = { color: "black", dynamic: false };

    const greenX = ramp2.x + (rampLen / 2) * cos;
    const greenY = ramp2.y + (rampLen / 2) * sin + 1.5 * GREEN_R;
    const minCeiling = greenY + GREEN_R + 1.0 - T / 2;
    const maxCeiling = 5 - T / 2;
    const ceilingY = minCeiling >= maxCeiling ? maxCeiling : rng.uniform(minCeiling, maxCeiling);

    rng.uniform(-5, 5);
    const redRadius = rng.uniform(0.2, 0.4);
    return {
      redRadius,
      scene: {
        purple_basket: purpleBasket,
        right_ramp: rightRamp,
        right_beam: rightBeam,
        left_ramp_1: ramp1,
        left_beam: leftBeam,
        left_ramp_2: ramp2,
        left_beam_base: bar(beamX, beamY - 2 * BLACK_BALL_R - T, beamLen, 0, black),
        black_ball_1: ball(beamEnds.right - BLACK_BALL_R, ballY, BLACK_BALL_R, blackBall),
        black_ball_2: ball(beamEnds.left + 3 * BLACK_BALL_R, ballY, BLACK_BALL_R, blackBall),
        green_ball: ball(greenX, greenY, GREEN_R, { color: "green" }),
        ceiling: bar(0, ceilingY, 10, 0, black),
      },
    };
  },
});
