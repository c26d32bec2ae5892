/** Plane geometry shared by the placement check and the actor's scene descriptions. */
export type Point = readonly [number, number];

/** Closest point on a convex polygon's boundary to p, its distance, and whether p lies inside. */
export const closestOnConvexPolygon = (p: Point, poly: readonly Point[]): { q: Point; d: number; inside: boolean } => {
  let q: Point = poly[0]!;
  let d = Infinity;
  let sign = 0;
  let inside = true;
  for (let i = 0; i < poly.length; i++) {
    const [ax, ay] = poly[i]!;
    const [bx, by] = poly[(i + 1) % poly.length]!;
    const ex = bx - ax;
    const ey = by - ay;
    // Orientation-independent: inside when p is on the same side of every edge.
    const cross = ex * (p[1] - ay) - ey * (p[0] - ax);
    if (cross !== 0) {
      if (sign === 0) sign = Math.sign(cross);
      else if (Math.sign(cross) !== sign) inside = false;
    }
    const t = Math.max(0, Math.min(1, ((p[0] - ax) * ex + (p[1] - ay) * ey) / (ex * ex + ey * ey)));
    const cx = ax + t * ex;
    const cy = ay + t * ey;
    const dist = Math.hypot(p[0] - cx, p[1] - cy);
    if (dist < d) {
      d = dist;
      q = [cx, cy];
    }
  }
  return { q, d, inside };
};
