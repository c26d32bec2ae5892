import { basketFixtures } from "../world/basket-geometry.ts";
import { WALL_CENTRE, WALL_HALF_LENGTH, WALL_HALF_THICKNESS, type WALL_NAMES } from "../world/constants.ts";
import type { SceneObject } from "../world/scene.ts";
import { closestOnConvexPolygon as onPolygon, type Point } from "../world/geometry.ts";

/** Plain-geometry queries on objects (distances, closest points, vertical rays) for the analysis tools. */
export type Pt = Point;
export type Shape = { kind: "circle"; part: string; c: Pt; r: number } | { kind: "poly"; part: string; pts: Pt[] };

/** Where a body is: the scene pose, or a live one (angle in degrees, as scenes and LiveObject use). */
interface Pose {
  x: number;
  y: number;
  angle: number;
}

const box = (hx: number, hy: number, cx = 0, cy = 0): Pt[] => [
  [cx - hx, cy - hy],
  [cx + hx, cy - hy],
  [cx + hx, cy + hy],
  [cx - hx, cy + hy],
];

const placeAt = (pose: Pose, local: readonly Pt[]): Pt[] => {
  const a = (pose.angle * Math.PI) / 180;
  const c = Math.cos(a);
  const s = Math.sin(a);
  return local.map(([x, y]) => [pose.x + c * x - s * y, pose.y + s * x + c * y] as const);
};

/** The object's fixtures in world coordinates; a basket's sensor only when asked (it is not a surface). */
export const shapesOf = (o: SceneObject, pose: Pose = o, withSensor = false): Shape[] => {
  switch (o.type) {
    case "ball":
      return [{ kind: "circle", part: "ball", c: [pose.x, pose.y], r: o.radius }];
    case "bar":
      return [{ kind: "poly", part: "bar", pts: placeAt(pose, box(o.length / 2, o.thickness / 2)) }];
    case "basket":
      return basketFixtures(o)
        .filter((f) => withSensor || !f.sensor)
        .map((f) => ({ kind: "poly", part: f.part, pts: placeAt(pose, f.kind === "box" ? box(f.hx, f.hy, f.cx, f.cy) : f.vertices) }));
  }
};

const WALL_POSES: Record<(typeof WALL_NAMES)[number], Pt> = {
  left_wall: [-WALL_CENTRE, 0],
  right_wall: [WALL_CENTRE, 0],
  top_wall: [0, WALL_CENTRE],
  bottom_wall: [0, -WALL_CENTRE],
};

export const wallShapes = (name: (typeof WALL_NAMES)[number]): Shape[] => {
  const [x, y] = WALL_POSES[name];
  const vertical = name === "left_wall" || name === "right_wall";
  const [hx, hy] = vertical ? [WALL_HALF_THICKNESS, WALL_HALF_LENGTH] : [WALL_HALF_LENGTH, WALL_HALF_THICKNESS];
  return [{ kind: "poly", part: "wall", pts: box(hx, hy, x, y) }];
};

/** Surface gap between two shapes (negative when they overlap) and the closest point on each. */
interface Closest {
  gap: number;
  onA: Pt;
  onB: Pt;
  partA: string;
  partB: string;
}

const circleTo = (c: Pt, r: number, s: Shape): { gap: number; onA: Pt; onB: Pt } => {
  const on = s.kind === "circle" ? { q: s.c, inside: false } : onPolygon(c, s.pts);
  const { q, inside } = on;
  const d = Math.hypot(q[0] - c[0], q[1] - c[1]) || 1e-12;
  const u: Pt = [(q[0] - c[0]) / d, (q[1] - c[1]) / d];
  if (s.kind === "circle") {
    return { gap: d - r - s.r, onA: [c[0] + u[0] * r, c[1] + u[1] * r], onB: [q[0] - u[0] * s.r, q[1] - u[1] * s.r] };
  }
  const dir = inside ? -1 : 1;
  return { gap: dir * d - r, onA: [c[0] + dir * u[0] * r, c[1] + dir * u[1] * r], onB: q };
};

const shapeGap = (a: Shape, b: Shape): { gap: number; onA: Pt; onB: Pt } => {
  if (a.kind === "circle") return circleTo(a.c, a.r, b);
  if (b.kind === "circle") {
    const g = circleTo(b.c, b.r, a);
    return { gap: g.gap, onA: g.onB, onB: g.onA };
  }
  // Convex polygons: the closest pair always includes a vertex of one of them. Parallel faces tie along their
  // overlap; the mean of the tied pairs is the pair in its middle, which says where the gap really is.
  const pairs: { gap: number; onA: Pt; onB: Pt }[] = [];
  for (const v of a.pts) {
    const o = onPolygon(v, b.pts);
    pairs.push({ gap: o.inside ? -o.d : o.d, onA: v, onB: o.q });
  }
  for (const v of b.pts) {
    const o = onPolygon(v, a.pts);
    pairs.push({ gap: o.inside ? -o.d : o.d, onA: o.q, onB: v });
  }
  const gap = Math.min(...pairs.map((c) => c.gap));
  const tied = pairs.filter((c) => c.gap <= gap + 1e-9);
  const mean = (pick: (c: (typeof pairs)[number]) => Pt): Pt => [
    tied.reduce((s, c) => s + pick(c)[0], 0) / tied.length,
    tied.reduce((s, c) => s + pick(c)[1], 0) / tied.length,
  ];
  return { gap, onA: mean((c) => c.onA), onB: mean((c) => c.onB) };
};

export const closest = (a: readonly Shape[], b: readonly Shape[]): Closest => {
  let best: Closest = { gap: Infinity, onA: [0, 0], onB: [0, 0], partA: "", partB: "" };
  for (const sa of a) {
    for (const sb of b) {
      const g = shapeGap(sa, sb);
      if (g.gap < best.gap) best = { ...g, partA: sa.part, partB: sb.part };
    }
  }
  return best;
};

/** The y values where the vertical line through x crosses the shapes' outlines. */
export const crossings = (shapes: readonly Shape[], x: number): number[] =>
  shapes.flatMap((s) => {
    if (s.kind === "circle") {
      const dx = x - s.c[0];
      if (Math.abs(dx) > s.r) return [];
      const h = Math.sqrt(s.r * s.r - dx * dx);
      return [s.c[1] - h, s.c[1] + h];
    }
    const ys: number[] = [];
    s.pts.forEach(([ax, ay], i) => {
      const [bx, by] = s.pts[(i + 1) % s.pts.length]!;
      if ((ax - x) * (bx - x) > 0 || ax === bx) return;
      ys.push(ay + ((x - ax) / (bx - ax)) * (by - ay));
    });
    return ys;
  });

export const bounds = (shapes: readonly Shape[]) => {
  const xs = shapes.flatMap((s) => (s.kind === "circle" ? [s.c[0] - s.r, s.c[0] + s.r] : s.pts.map((p) => p[0])));
  const ys = shapes.flatMap((s) => (s.kind === "circle" ? [s.c[1] - s.r, s.c[1] + s.r] : s.pts.map((p) => p[1])));
  return { left: Math.min(...xs), right: Math.max(...xs), bottom: Math.min(...ys), top: Math.max(...ys) };
};

const distToSegment = (v: Pt, p: Pt, q: Pt): number => {
  const [ex, ey] = [q[0] - p[0], q[1] - p[1]];
  const t = Math.max(0, Math.min(1, ((v[0] - p[0]) * ex + (v[1] - p[1]) * ey) / (ex * ex + ey * ey || 1)));
  return Math.hypot(v[0] - p[0] - t * ex, v[1] - p[1] - t * ey);
};

const cross = (o: Pt, a: Pt, b: Pt) => (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);

/** Whether the segment p–q touches or passes through any of the shapes (tolerance eps). */
export const segmentHits = (p: Pt, q: Pt, shapes: readonly Shape[], eps = 1e-6): boolean =>
  shapes.some((s) => {
    if (s.kind === "circle") return distToSegment(s.c, p, q) <= s.r + eps;
    if (onPolygon(p, s.pts).inside || onPolygon(q, s.pts).inside) return true;
    if (s.pts.some((v) => distToSegment(v, p, q) <= eps)) return true;
    return s.pts.some((a, i) => {
      const b = s.pts[(i + 1) % s.pts.length]!;
      return cross(p, q, a) * cross(p, q, b) < 0 && cross(a, b, p) * cross(a, b, q) < 0;
    });
  });
