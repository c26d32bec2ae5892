import { defineLevel } from "./define-level.ts";
import { ball, bar } from "../objects.ts";
import type { Rng } from "../../../src/util/rng.ts";
import type { Scene } from "../world/scene.ts";

const GREEN_R = 0.5;
const STAR_R = 0.2;
const ROWS = 4;

/** One zig-zag row in normalised [0, 1] coordinates: a random walk heading roughly 5° upward from x = 0. */
const walkRow = (rng: Rng, y0: number, nodes: number): [number, number][] => {
  const heading = (5 * Math.PI) / 180;
  const pts: [number, number][] = [[0, y0]];
  let x = 0;
  let y = y0;
  for (let k = 0; k < nodes; k++) {
    const step = rng.uniform(0.05, 0.15);
    const angle = heading + (rng.normal() * 2 * Math.PI) / 40;
    x += step * Math.cos(angle);
    y += step * Math.sin(angle);
    if (x >= 0.8) break;
    pts.push([x, y]);
  }
  return pts;
};

/** numpy.linspace(start, stop, n): start + i·step, with the last value set to stop exactly. */
const linspace = (start: number, stop: number, n: number): number[] =>
  Array.from({ length: n }, (_, i) => (i === n - 1 ? stop : start + (i * (stop - start)) / (n - 1)));

/** Causal chain: the red ball deflects the green ball as it falls so that it threads between the rows of stars down to the purple floor. */
export default defineLevel({
  id: "pinball_machine",
  goal: ["green_ball", "purple_floor"],
  description:
    "A dynamic green ball (r 0.5) starts near the top of the world, left of centre, and falls when the " +
    "simulation starts. Below it are four rows of static black star balls (r 0.2), each row starting at the " +
    "left or right wall (alternating) and running part-way across with a slight zig-zag. A static purple " +
    "floor lies at the bottom. Goal: the green ball touches the purple floor for 3 seconds.",
  generate: (rng) => {
    const greenX = -5 + rng.uniform(0.2, 0.5) * 10;
    const redRadius = rng.uniform(0.3, 0.6);

    const radiusNorm = GREEN_R / 10;
    const topNorm = 0.9 - radiusNorm - 2 * (2 * radiusNorm);
    const rowYs = linspace(0.1, topNorm, ROWS).reverse();
    const stars: [number, number][] = [];
    rowYs.forEach((y0, i) => {
      const nodes = rng.integers(3, 6);
      const row = walkRow(rng, y0, nodes);
      stars.push(...(i % 2 ? row.map(([x, y]): [number, number] => [1 - x, y]) : row));
    });

    const scene: Scene = {
      green_ball: ball(greenX, -5 + 0.9 * 10, GREEN_R, { color: "green" }),
      purple_floor: bar(0.0, -5 + 0.2 / 2, 10, 0.0, { color: "purple", dynamic: false }),
    };
    stars.forEach(([x, y], i) => {
      const xw = -5 + x * 10;
      const yw = -5 + y * 10;
      if (xw >= -5 && xw <= 5 && yw >= -5 && yw <= 5) {
        scene[`star_${i}`] = ball(xw, yw, STAR_R, { color: "black", dynamic: false });
      }
    });
    return { redRadius, scene };
  },
});
