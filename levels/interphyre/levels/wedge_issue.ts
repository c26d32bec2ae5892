import { defineLevel } from "./define-level.ts";
import { ball, bar, barEnds } from "../objects.ts";

const MIN_X = -5;
const MAX_X = 5;
const MIN_Y = -5;
const SIZE = 10;

interface Edges {
  right?: number;
  left?: number;
  bottom: number;
}

/** Centre of a bar (thickness included) so that its rotated rectangle touches the given right or left and bottom. */
const centreForEdges = (angleDeg: number, length: number, thickness: number, edges: Edges) => {
  const a = (angleDeg * Math.PI) / 180;
  const ux = Math.cos(a);
  const uy = Math.sin(a);
  const vx = -uy;
  const vy = ux;
  const dx = length / 2;
  const dy = thickness / 2;
  const corners = [
    [dx * ux + dy * vx, dx * uy + dy * vy],
    [dx * ux - dy * vx, dx * uy - dy * vy],
    [-dx * ux + dy * vx, -dx * uy + dy * vy],
    [-dx * ux - dy * vx, -dx * uy - dy * vy],
  ] as const;
  const xs = corners.map((c) => c[0]);
  const ys = corners.map((c) => c[1]);
  let x = 0.0;
  if (edges.right !== undefined) x = edges.right - Math.max(...xs);
  else if (edges.left !== undefined) x = edges.left - Math.min(...xs);
  return { x, y: edges.bottom - Math.min(...ys) };
};

/** Causal chain: the green ball falls onto the bars; the red ball wedges or stops it so it stays on the purple bar. */
export default defineLevel({
  id: "wedge_issue",
  goal: ["green_ball", "purple_bar"],
  description:
    "A static purple bar rises towards the right wall from the lower part of the world, and a static black bar " +
    "descends from the left wall, its lowest point higher than the purple bar's. A dynamic green ball starts near " +
    "the top of the world. Goal: the green ball touches the purple bar for 3 seconds.",
  generate: (rng) => {
    const thickness = 0.2;
    const barY = rng.uniform(0.1, 0.5);
    const angleLeft = rng.uniform(15, 30);
    const angleRight = rng.uniform(15, 30);
    const lengthLeft = rng.uniform(0.2, 0.8);
    const gapRatio = 0.15;

    const purpleLength = (1 - lengthLeft) * SIZE;
    const purpleCentre = centreForEdges(angleLeft, purpleLength, thickness, {
      right: MAX_X + 0.1,
      bottom: barY * SIZE + MIN_Y,
    });
    const purpleBar = bar(purpleCentre.x, purpleCentre.y, purpleLength, angleLeft, {
      color: "purple",
      dynamic: false,
      thickness,
    });

    const blackLength = lengthLeft * SIZE;
    const blackCentre = centreForEdges(-angleRight, blackLength, thickness, {
      left: MIN_X - 0.1,
      bottom: (barY + gapRatio) * SIZE + MIN_Y,
    });
    const blackBar = bar(blackCentre.x, blackCentre.y, blackLength, -angleRight, {
      color: "black",
      dynamic: false,
      thickness,
    });

    const greenRadius = 0.5;
    const greenBottom = 0.9 * SIZE + MIN_Y;
    let xMin = MIN_X + 0.2 * SIZE;
    const xMax = MIN_X + 0.8 * SIZE;
    const blackEnds = barEnds(blackBar);
    if (blackEnds.top > greenBottom) xMin = Math.max(xMin, blackEnds.right + greenRadius + 0.05);
    const greenX = rng.uniform(xMin, Math.max(xMin, xMax));
    const redRadius = rng.uniform(0.3, 0.6);

    return {
      redRadius,
      scene: {
        green_ball: ball(greenX, greenBottom + greenRadius, greenRadius, { color: "green" }),
        purple_bar: purpleBar,
        black_bar: blackBar,
      },
    };
  },
});
