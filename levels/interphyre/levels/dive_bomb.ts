import type { Scene } from "../world/scene.ts";
import { defineLevel } from "./define-level.ts";
import { ball, bar, barEnds, barFromCorner, barFromEndpoints, barLeftRight } from "../objects.ts";

const T = 0.2;
const STATIC = { color: "black", dynamic: false } as const;
const rad = (deg: number) => (deg * Math.PI) / 180;

/** Causal chain: the red ball drives the green ball down the chute past the small gray ball, off the exit ramp and deflector, and into the walled slot onto the purple pad. */
export default defineLevel({
  id: "dive_bomb",
  goal: ["green_ball", "purple_pad"],
  description:
    "The floor is a short static purple pad between static black floor bars, walled by a static black post " +
    "on its left and a static black stack of five planks topped by a post on its right. Left of the pad, " +
    "three parallel static black bars descend to the right as a chute ending in a short black exit ramp, " +
    "with a long static black deflector sloping down from above the ramp; a dynamic green ball and a smaller " +
    "dynamic gray ball start just above the lowest chute bar. Goal: the green ball touches the purple pad " +
    "for 3 seconds.",
  generate: (rng) => {
    const greenR = rng.uniform(0.2, 0.47);
    const padLeft = -5 + rng.uniform(0.35, 0.65) * 10;
    const padRight = padLeft + 1;
    const floorY = -5 + T / 2;
    const shortX = padLeft - T / 2;
    const cannonRightX = shortX - T / 2 - 1.0;
    const reach = cannonRightX + 5 - greenR;

    let angle = rng.uniform(-50, -30);
    let maxLength = reach / Math.cos(rad(angle));
    if (maxLength < 3) {
      const required = (Math.acos(Math.min(1, Math.max(-1, reach / 3))) * 180) / Math.PI;
      angle = required <= 50 ? rng.uniform(-50, -required) : -required;
      maxLength = reach / Math.cos(rad(angle));
    }
    maxLength = Math.min(6, maxLength);
    const length = maxLength < 3 ? maxLength : rng.uniform(3, maxLength);

    const a = rad(angle);
    const leftX = cannonRightX - length * Math.cos(a);
    const leftY = -2 - length * Math.sin(a) + (T / 2) * Math.cos(a);
    const rightY = leftY + length * Math.sin(a);
    const cannonBottom = barFromEndpoints(leftX, leftY, cannonRightX, rightY, STATIC);
    const rampLeftX = cannonRightX - 0.2;
    const ramp = barFromEndpoints(rampLeftX, rightY, rampLeftX + Math.cos(rad(10)), rightY + Math.sin(rad(10)), STATIC);

    const stack = Array.from({ length: 5 }, (_, i) => barLeftRight(padRight, padRight + 1, floorY + T / 2 + i * T + T / 2, STATIC));
    const topPlank = stack[4]!;

    const along = (f: number) => ({
      x: leftX + f * (cannonRightX - leftX),
      y: leftY + f * (rightY - leftY) + T / 2,
    });
    const greenPos = rng.uniform(0.0, 0.8);
    const g = along(greenPos);
    const grayR = greenR * 0.5;
    const maxGray = (barEnds(ramp).x1 - leftX - grayR) / (cannonRightX - leftX);
    let lo = greenPos + 0.15;
    let hi = Math.min(0.95, maxGray);
    if (hi < lo) {
      lo = greenPos;
      hi = maxGray;
    }
    const grayPos = hi <= lo ? lo : rng.uniform(lo, hi);
    const gr = along(grayPos);

    const offsetBar = (d: number) => bar(cannonBottom.x + d * Math.cos(rad(90)), cannonBottom.y + d * Math.sin(rad(90)), length, angle, STATIC);
    const cannonMiddle = offsetBar(greenR * 6);
    const cannonTop = offsetBar(greenR * 10);
    const rampTipX = ramp.x + 0.5 * Math.cos(rad(10));
    const rampTipY = ramp.y + 0.5 * Math.sin(rad(10));
    const deflector = barFromCorner(rampTipX, rampTipY + T / 2 + (cannonTop.y - cannonBottom.y), -30.0, 5.0, STATIC);

    rng.uniform(-4, 4);
    rng.uniform(-3, 3);

    const scene: Scene = {
      cannon_bottom: cannonBottom,
      cannon_middle: cannonMiddle,
      cannon_top: cannonTop,
      cannon_top_extension: deflector,
      ramp,
      short_barrier: bar(shortX, floorY + 0.5, 1, 90.0, STATIC),
      tall_barrier: bar(barEnds(topPlank).left + T / 2, topPlank.y + T / 2 + 0.5, 1, 90.0, STATIC),
      purple_pad: barLeftRight(padLeft, padRight, floorY, { color: "purple", dynamic: false }),
      left_floor: barLeftRight(-5, padLeft, floorY, STATIC),
      right_floor: barLeftRight(padRight, 5, floorY, STATIC),
      green_ball: ball(g.x, g.y + greenR * 1.7, greenR, { color: "green" }),
      gray_ball: ball(gr.x, gr.y + grayR * 2.6, grayR, { color: "gray" }),
    };
    stack.forEach((plank, i) => (scene[`stack_bar_${i}`] = plank));
    return { redRadius: 0.4, scene };
  },
});
