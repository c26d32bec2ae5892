import { defineLevel } from "./define-level.ts";
import { ball, bar } from "../objects.ts";
import type { Rng } from "../../../src/util/rng.ts";
import type { Scene } from "../world/scene.ts";

const GREEN_R = 0.5;
const STAR_R = 0.25;
const TAU = 2 * Math.PI;

/**
 * One chain of star positions: a turning random walk that sometimes restarts from a random earlier point
 * (appending that point again). Points at or above `top` are skipped; it stops after `10..19` in-bounds points.
 */
const genChain = (rng: Rng, startX: number, startY: number, top: number): [number, number][] => {
  let angle = rng.random() * TAU;
  let turn = (rng.random() * TAU) / 10;
  const pts: [number, number][] = [[startX, startY]];
  let lineLength = 1;
  let nValid = 0;
  const maxPoints = rng.integers(10, 20);
  while (nValid < maxPoints) {
    let x: number;
    let y: number;
    if (lineLength >= 3 && rng.random() < 0.2) {
      [x, y] = pts[rng.integers(0, pts.length)]!;
      lineLength = 1;
      angle = rng.random() * TAU;
      turn = (rng.random() * TAU) / 10;
    } else {
      lineLength += 1;
      const step = rng.uniform(1.5, 3.0);
      angle += turn;
      [x, y] = pts[pts.length - 1]!;
      x += step * Math.cos(angle);
      y += step * Math.sin(angle);
    }
    if (y >= top) continue;
    pts.push([x, y]);
    const nx = (x + 5) / 10;
    const ny = (y + 5) / 10;
    if (nx > 0 && nx < 1 && ny > 0 && ny < 1) nValid += 1;
  }
  return pts;
};

/** Causal chain: the red ball knocks the green ball through a gap between the static star clusters so it falls to the purple floor. */
export default defineLevel({
  id: "locust_swarm",
  goal: ["green_ball", "purple_floor"],
  description:
    "A dynamic green ball (r 0.5) starts near the top of the world and falls when the simulation starts. " +
    "Below it are two irregular, branching clusters of static black star balls (r 0.25), one starting " +
    "directly under the green ball and one right of centre, all below y = 1.5. A static purple floor lies at " +
    "the bottom. Goal: the green ball touches the purple floor for 3 seconds.",
  generate: (rng) => {
    const greenX = rng.uniform(-4, 4);
    const greenY = 5 - 0.1 * 10;
    const redRadius = rng.uniform(0.3, 0.6);
    const top = greenY - 5 * GREEN_R;

    const stars: [number, number][] = [];
    for (const startX of [greenX, -5 + 0.7 * 10]) stars.push(...genChain(rng, startX, -5 + 0.5 * 10, top));

    const scene: Scene = {
      green_ball: ball(greenX, greenY, GREEN_R, { color: "green" }),
      purple_floor: bar(0.0, -4.9, 10, 0.0, { color: "purple", dynamic: false }),
    };
    stars.forEach(([x, y], i) => {
      const nx = (x + 5) / 10;
      const ny = (y + 5) / 10;
      if (nx >= 0 && nx <= 1 && ny >= 0 && ny <= 1) {
        scene[`star_${i}`] = ball(x, y, STAR_R, { color: "black", dynamic: false });
      }
    });
    return { redRadius, scene };
  },
});
