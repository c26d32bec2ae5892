import type { Scene } from "../world/scene.ts";
import { defineLevel } from "./define-level.ts";
import { ball, bar } from "../objects.ts";

const MIN_Y = -5;
const MAX_X = 5;
const MAX_Y = 5;
const SIZE = 10;
const STATIC_BLACK = { color: "black", dynamic: false } as const;

/** Causal chain: the green ball falls down the channel; the red ball knocks it through the separator hole onto the purple ground. */
export default defineLevel({
  id: "zebra_crossing",
  goal: ["green_ball", "purple_ground"],
  description:
    "A static black vertical separator, split into top_separator and bottom_separator with a hole between them, " +
    "divides the world into a left and a right part. On the left, seven parallel static black slats are stacked " +
    "from bottom to top, each sloping down towards the separator, and a dynamic green ball starts at the top of the " +
    "narrow channel between the slats and the separator. On the right, a dynamic gray ball floats beside the " +
    "separator, and the floor there is a static purple ground strip. " +
    "Goal: the green ball touches the purple ground for 3 seconds.",
  generate: (rng) => {
    let slatIndex = rng.integers(0, 10);
    const angle = rng.uniform(10, 45);
    const spacing = rng.uniform(0.1, 0.5);
    const separatorX = rng.uniform(0.0, 1.0);

    const greenRadius = 0.4;
    const diameter = 0.8;
    const slatLength = 3.0;
    const slatStep = 1.5;
    const tipX = separatorX - diameter - spacing - 0.12;

    const slatYs: number[] = [];
    const slatRows: number[] = [];
    for (let i = 0; i < 10; i++) {
      const centreY = MIN_Y + i * slatStep + slatLength / 2;
      if (centreY - slatLength / 2 < MAX_Y) {
        slatRows.push(i);
        slatYs.push(centreY);
      }
    }
    if (slatIndex >= slatRows.length) slatIndex = slatRows.length - 1;

    const halfRun = (slatLength / 2) * Math.cos((-angle * Math.PI) / 180);
    const slatX = tipX - halfRun;
    const greenX = slatX + halfRun + 0.04 + greenRadius;

    const holeTop = Math.min(Math.max(slatRows[slatIndex]! * 0.15 - spacing / 10, 0.2), 0.9);
    const holeSize = diameter * 0.2;
    const topLength = (1.0 - holeTop) * SIZE;
    const bottomLength = (holeTop - holeSize) * SIZE;

    const grayRadius = 0.5;
    const grayY = (holeTop < 0.7 ? 4.0 : -2.0) + grayRadius;
    const groundLength = MAX_X - separatorX;

    const scene: Scene = {
      green_ball: ball(greenX, 4.4, greenRadius, { color: "green" }),
      gray_ball: ball(separatorX + 0.3 + grayRadius, grayY, grayRadius, { color: "gray" }),
      top_separator: bar(separatorX, MAX_Y - topLength / 2, topLength, 90, STATIC_BLACK),
      bottom_separator: bar(separatorX, MIN_Y + bottomLength / 2, bottomLength, 90, STATIC_BLACK),
      purple_ground: bar(separatorX + groundLength / 2, MIN_Y + 0.1, groundLength, 0, {
        color: "purple",
        dynamic: false,
      }),
    };
    slatYs.forEach((y, k) => {
      scene[`diagonal_bar_${k + 1}`] = bar(slatX, y, slatLength, -angle, STATIC_BLACK);
    });
    return { redRadius: 0.5, scene };
  },
});
