import { WALL_NAMES } from "../world/constants.ts";
import type { Scene, SceneObject } from "../world/scene.ts";
import { round } from "./common.ts";
import { bounds, closest, crossings, segmentHits, shapesOf, wallShapes, type Pt, type Shape } from "./scene-geometry.ts";

/**
 * A strategy-neutral inventory of a scene at rest (describe_scene_geometry): how the goal objects sit
 * relative to each other, what holds each dynamic object up, which bars balance on a single point, and the
 * gaps between static surfaces. Everything is measured on the initial poses; nothing is simulated.
 */

/** Box2D counts polygons as touching 0.01 outside their outline, each side; beyond this the pair is apart. */
const TOUCH = 0.02;
/** Beyond this tilt a bar is a post rather than a beam, and "left/right arm" means nothing. */
const BEAM_MAX_TILT_DEG = 45;

interface Body {
  name: string;
  obj: SceneObject | undefined;
  shapes: Shape[];
  dynamic: boolean;
}

const bodiesOf = (scene: Scene): Body[] => [
  ...Object.entries(scene).map(([name, obj]) => ({ name, obj, shapes: shapesOf(obj), dynamic: obj.dynamic })),
  ...WALL_NAMES.map((name) => ({ name, obj: undefined, shapes: wallShapes(name), dynamic: false })),
];

const centre = (b: Body): Pt => {
  const e = bounds(b.shapes);
  return [(e.left + e.right) / 2, (e.bottom + e.top) / 2];
};

const pt = (p: Pt): [number, number] => [round(p[0], 3), round(p[1], 3)];

const goalRelation = (a: Body, b: Body) => {
  const [ca, cb] = [centre(a), centre(b)];
  const c = closest(a.shapes, b.shapes);
  return {
    objects: [a.name, b.name],
    centre_dx: round(ca[0] - cb[0], 3),
    centre_dy: round(ca[1] - cb[1], 3),
    centre_distance: round(Math.hypot(ca[0] - cb[0], ca[1] - cb[1]), 3),
    surface_gap: round(Math.max(0, c.gap), 3),
    closest_points: [pt(c.onA), pt(c.onB)],
  };
};

const supportOf = (d: Body, others: Body[]) => {
  const [cx, cy] = centre(d);
  const restsOn = others.flatMap((o) => {
    const c = closest(d.shapes, o.shapes);
    return c.gap <= TOUCH && c.onB[1] < cy - 1e-3 ? [{ object: o.name, point: c.onB }] : [];
  });
  const from = Math.min(...crossings(d.shapes, cx), bounds(d.shapes).bottom);
  let below: { object: string; clearance: number } | null = null;
  for (const o of others) {
    const tops = crossings(o.shapes, cx).filter((y) => y <= from + TOUCH);
    if (tops.length === 0) continue;
    const clearance = Math.max(0, from - Math.max(...tops));
    if (!below || clearance < below.clearance) below = { object: o.name, clearance: round(clearance, 3) };
  }
  return { object: d.name, rests_on: restsOn, directly_above: below };
};

/** A beam resting on one support that touches its underside between the ends, not at a corner. */
const pivotOf = (d: Body, support: { object: string; point: Pt }[], byName: Map<string, Body>) => {
  if (d.obj?.type !== "bar" || support.length !== 1) return [];
  const tilt = ((((d.obj.angle + 90) % 180) + 180) % 180) - 90;
  if (Math.abs(tilt) > BEAM_MAX_TILT_DEG) return [];
  const under = byName.get(support[0]!.object)!;
  const corners = d.shapes[0]!.kind === "poly" ? d.shapes[0]!.pts : [];
  if (corners.some((v) => closest([{ kind: "circle", part: "corner", c: v, r: 0 }], under.shapes).gap <= TOUCH)) return [];
  const p = support[0]!.point;
  const a = (tilt * Math.PI) / 180;
  const along = (p[0] - d.obj.x) * Math.cos(a) + (p[1] - d.obj.y) * Math.sin(a);
  const half = d.obj.length / 2;
  return [
    { bar: d.name, on: under.name, point: pt(p), offset_from_centre: round(along, 3), left_arm: round(half + along, 3), right_arm: round(half - along, 3) },
  ];
};

/** Walls never occlude: the closest points of two parallel surfaces may lie at x = ±5, on a wall. */
const occluded = (p: Pt, q: Pt, others: Body[]): boolean => others.some((o) => segmentHits(p, q, o.shapes));

const directionOf = (p: Pt, q: Pt) => {
  const [dx, dy] = [Math.abs(q[0] - p[0]), Math.abs(q[1] - p[1])];
  return dx > 2 * dy ? "horizontal" : dy > 2 * dx ? "vertical" : "diagonal";
};

const staticGaps = (statics: Body[], cap: number) => {
  const gaps = [];
  for (let i = 0; i < statics.length; i++) {
    for (let j = i + 1; j < statics.length; j++) {
      const [a, b] = [statics[i]!, statics[j]!];
      if (!a.obj && !b.obj) continue;
      const c = closest(a.shapes, b.shapes);
      if (
        c.gap <= TOUCH ||
        occluded(
          c.onA,
          c.onB,
          statics.filter((o) => o.obj && o !== a && o !== b),
        )
      )
        continue;
      gaps.push({ a: a.name, b: b.name, gap: round(c.gap, 3), direction: directionOf(c.onA, c.onB), between: [pt(c.onA), pt(c.onB)] });
    }
  }
  return { total: gaps.length, smallest: gaps.sort((p, q) => p.gap - q.gap).slice(0, cap) };
};

export const sceneLayout = (scene: Scene, goal: readonly [string, string], gapCap = 8) => {
  const bodies = bodiesOf(scene);
  const byName = new Map(bodies.map((b) => [b.name, b]));
  const supports = bodies
    .filter((b) => b.dynamic)
    .map((d) =>
      supportOf(
        d,
        bodies.filter((o) => o !== d),
      ),
    );
  const pivots = supports.flatMap((s) => pivotOf(byName.get(s.object)!, s.rests_on, byName));
  return {
    goal: goalRelation(byName.get(goal[0])!, byName.get(goal[1])!),
    supports: supports.map((s) => ({ ...s, rests_on: s.rests_on.map((r) => r.object) })),
    pivots,
    static_gaps: staticGaps(
      bodies.filter((b) => !b.dynamic),
      gapCap,
    ),
  };
};
export type SceneLayout = ReturnType<typeof sceneLayout>;
