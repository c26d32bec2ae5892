import { RADIUS_MAX, RADIUS_MIN, WORLD_MAX, WORLD_MIN, degToRad } from "./constants.ts";
import { basketFixtures } from "./basket-geometry.ts";
import { closestOnConvexPolygon, type Point } from "./geometry.ts";
import type { Action } from "./simulation.ts";
import type { BasketObject, Scene, SceneObject } from "./scene.ts";
import { ACTION_OBJECT } from "./constants.ts";

/** Where the red ball may go (docs/spec/interphyre.md §4.2). */
export interface ActionBounds {
  x: readonly [number, number];
  y: readonly [number, number];
  radius: readonly [number, number];
}

export const WORLD_ACTION_BOUNDS: ActionBounds = {
  x: [WORLD_MIN, WORLD_MAX],
  y: [WORLD_MIN, WORLD_MAX],
  radius: [RADIUS_MIN, RADIUS_MAX],
};

export type Placement =
  | { ok: true; action: Action }
  | {
      ok: false;
      /** The offending field (x, y, radius) or the object the ball overlaps. */
      field: string;
      reason: string;
      /** How far the placement is from being valid, in metres. */
      distance: number;
      action: Action;
    };

/** Signed distance from p to a convex polygon (negative inside). */
const polygonDistance = (p: Point, poly: readonly Point[]): number => {
  const { d, inside } = closestOnConvexPolygon(p, poly);
  return inside ? -d : d;
};

const toWorld = (o: SceneObject, local: readonly Point[]): Point[] => {
  const a = degToRad(o.angle);
  const c = Math.cos(a);
  const s = Math.sin(a);
  return local.map(([x, y]) => [o.x + c * x - s * y, o.y + s * x + c * y] as const);
};

const boxCorners = (hx: number, hy: number, cx = 0, cy = 0): Point[] => [
  [cx - hx, cy - hy],
  [cx + hx, cy - hy],
  [cx + hx, cy + hy],
  [cx - hx, cy + hy],
];

/**
 * A basket's solid parts in world coordinates, rotated and flared as the engine builds them, plus the
 * virtual cap across its mouth that Interphyre's check adds so that a ball cannot be placed straddling
 * the rim. A ball wholly inside the basket stays valid, as in Interphyre.
 */
const basketPolygons = (b: BasketObject): Point[][] => {
  const parts = basketFixtures(b).flatMap((f) => {
    if (f.sensor) return [];
    return [f.kind === "box" ? boxCorners(f.hx, f.hy, f.cx, f.cy) : f.vertices];
  });
  const left = parts[1]!;
  const right = parts[2]!;
  const rimTop = left[1]![1];
  const wt = b.wall_thickness;
  const cap: Point[] = [
    [left[1]![0], rimTop - wt],
    [right[3]![0], rimTop - wt],
    [right[3]![0], rimTop],
    [left[1]![0], rimTop],
  ];
  return [...parts, cap].map((p) => toWorld(b, p));
};

/** Distance between the ball's centre and the object's surface (negative when the centre is inside). */
const surfaceDistance = (p: Point, o: SceneObject): number => {
  switch (o.type) {
    case "ball":
      return Math.hypot(p[0] - o.x, p[1] - o.y) - o.radius;
    case "bar":
      return polygonDistance(p, toWorld(o, boxCorners(o.length / 2, o.thickness / 2)));
    case "basket":
      return Math.min(...basketPolygons(o).map((poly) => polygonDistance(p, poly)));
  }
};

const fmt = (v: number) => Number(v.toFixed(4));

/**
 * Interphyre's placement rule (docs/spec/interphyre.md §4.3) with baskets tested against their real shape: the radius
 * is clipped into bounds, the ball must lie inside the world (and the level's x/y bounds), and it must not
 * touch any level object at its initial pose — touching counts as overlap. An invalid placement is never
 * simulated; the result says which field or object is at fault and by how much.
 */
export const checkPlacement = (scene: Scene, action: { x: number; y: number; radius: number }, bounds: ActionBounds = WORLD_ACTION_BOUNDS): Placement => {
  for (const field of ["x", "y", "radius"] as const) {
    if (typeof action[field] !== "number" || !Number.isFinite(action[field])) {
      const a = { x: action.x, y: action.y, radius: action.radius };
      return { ok: false, field, reason: `${field} must be a finite number (got ${action[field]})`, distance: Infinity, action: a };
    }
  }
  const radius = Math.min(bounds.radius[1], Math.max(bounds.radius[0], action.radius));
  const clipped: Action = { x: action.x, y: action.y, radius };
  const fail = (field: string, reason: string, distance: number): Placement => ({
    ok: false,
    field,
    reason,
    distance: fmt(distance),
    action: clipped,
  });
  for (const axis of ["x", "y"] as const) {
    const lo = Math.max(WORLD_MIN + radius, bounds[axis][0]);
    const hi = Math.min(WORLD_MAX - radius, bounds[axis][1]);
    const v = clipped[axis];
    if (v < lo || v > hi) {
      const by = v < lo ? lo - v : v - hi;
      return fail(axis, `${axis}=${fmt(v)} is outside [${fmt(lo)}, ${fmt(hi)}] for radius ${fmt(radius)}; move it by ${fmt(by)}`, by);
    }
  }
  for (const [name, obj] of Object.entries(scene)) {
    if (name === ACTION_OBJECT) continue;
    const gap = surfaceDistance([clipped.x, clipped.y], obj) - radius;
    if (gap <= 0) {
      return fail(name, `the ball overlaps ${name} by ${fmt(-gap)} (touching counts as overlap); move it away or shrink it`, -gap);
    }
  }
  return { ok: true, action: clipped };
};
