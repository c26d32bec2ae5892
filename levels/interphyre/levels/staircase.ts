import { defineLevel } from "./define-level.ts";
import type { Scene } from "../world/scene.ts";
import { ball, barEnds, barFromCorner, barTopBottom, basket } from "../objects.ts";

const MIN = -5;
const MAX = 5;
const SIZE = 10;
const NUM_STAIRS = 5;
const STATIC_BLACK = { color: "black", dynamic: false } as const;

/** Causal chain: the green ball rolls down the stairs; the red ball diverts it so it drops off a stair into the basket. */
export default defineLevel({
  id: "staircase",
  goal: ["basket", "green_ball"],
  description:
    "Five static black stairs, each tilted slightly downward, step down from the upper left towards the lower right. " +
    "A static purple basket stands on the bottom of the world below the stairs, between two static black vertical " +
    "guards. A dynamic green ball starts at the top of the world, at or to the left of the basket. " +
    "Goal: the green ball touches the basket for 3 seconds.",
  generate: (rng) => {
    const stairLength = (0.7 / NUM_STAIRS) * SIZE;
    const ySpan = rng.uniform(0.4, 0.6);
    const stairs = Array.from({ length: NUM_STAIRS }, (_, i) =>
      barFromCorner(MIN + (i / NUM_STAIRS) * SIZE, MIN + 0.8 * SIZE - (i / NUM_STAIRS) * ySpan * SIZE, -5, stairLength, STATIC_BLACK),
    );

    const maxBasketHeight = barEnds(stairs[NUM_STAIRS - 1]!).bottom - MIN - 0.1;
    const maxScale = Math.min(2.0, maxBasketHeight / 2.0);
    const scale = rng.uniform(1.5, Math.max(1.5, maxScale));
    const targetIndex = rng.integers(1, NUM_STAIRS);

    const cup = basket(0, MIN, scale, { color: "purple", dynamic: false, angle: 0, anchor: "bottom_center" });
    const halfTop = cup.top_width / 2;
    const guardOffset = halfTop + 0.305 + 0.1;
    const minX = MIN + guardOffset;
    const maxX = MAX - guardOffset;
    const target = barEnds(stairs[targetIndex]!);
    const leftAlign = target.left + halfTop;
    const rightAlign = target.right - halfTop;
    const aligns: ("left" | "right")[] = [];
    if (minX <= leftAlign && leftAlign <= maxX) aligns.push("left");
    if (minX <= rightAlign && rightAlign <= maxX) aligns.push("right");
    if (aligns.length === 0) cup.x = Math.min(Math.max(leftAlign, minX), maxX);
    else cup.x = rng.choice(aligns) === "right" ? rightAlign : leftAlign;

    const guardTop = MIN + cup.height + 0.2;
    const leftGuard = barTopBottom(guardTop, MIN, cup.x - halfTop - 0.305, STATIC_BLACK);
    const rightGuard = barTopBottom(guardTop, MIN, cup.x + halfTop + 0.305, STATIC_BLACK);

    const greenRadius = 0.3;
    const maxBallX = cup.x + halfTop + greenRadius;
    const greenX = rng.uniform(MIN + greenRadius, Math.min(maxBallX, MAX - greenRadius));
    const redRadius = rng.uniform(0.3, 0.6);

    const scene: Scene = {
      green_ball: ball(greenX, MAX - greenRadius, greenRadius, { color: "green" }),
      basket: cup,
      left_guard: leftGuard,
      right_guard: rightGuard,
    };
    stairs.forEach((stair, i) => {
      scene[`stair_${i + 1}`] = stair;
    });
    return { redRadius, scene };
  },
});
