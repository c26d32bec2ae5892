import type { LevelInstance } from "../instance.ts";
import { checkPlacement } from "../world/placement.ts";
import type { Rng } from "../../../src/util/rng.ts";
import type { Action } from "../world/simulation.ts";
import { bounds, crossings, shapesOf, type Shape } from "../tools/scene-geometry.ts";

/** A placement worth a rollout, with the reason it was proposed and how promising it looks before any test. */
export interface Candidate {
  action: Action;
  /** Kind of move and its target, e.g. "drop:green_ball"; explorations spread across families. */
  family: string;
  prior: number;
  why: string;
}

interface Box {
  name: string;
  left: number;
  right: number;
  bottom: number;
  top: number;
  cx: number;
  dynamic: boolean;
}

const boxesOf = (inst: LevelInstance): Map<string, Box> =>
  new Map(
    Object.entries(inst.scene).map(([name, o]) => {
      const b = bounds(shapesOf(o));
      return [name, { name, ...b, cx: (b.left + b.right) / 2, dynamic: o.dynamic }];
    }),
  );

/** The highest static object under the box's centre line, ignoring `skip`. */
const staticBelow = (boxes: Map<string, Box>, t: Box, skip: string | undefined): Box | undefined =>
  [...boxes.values()]
    .filter((b) => !b.dynamic && b.name !== skip && b.top <= t.bottom + 0.05 && b.left <= t.cx && b.right >= t.cx)
    .sort((a, b) => b.top - a.top)[0];

/** The highest static object under the point (x, y). */
const below = (boxes: Map<string, Box>, x: number, y: number): Box | undefined =>
  [...boxes.values()].filter((b) => !b.dynamic && b.top <= y && b.left <= x && b.right >= x).sort((a, b) => b.top - a.top)[0];

/**
 * Which way the target should move (−1 left, +1 right, 0 unknown): toward its goal partner when the
 * partner lies to one side; when the partner lies below, off the nearer edge of what holds the target up.
 */
const pushDirection = (inst: LevelInstance, boxes: Map<string, Box>, t: Box): number => {
  const [g0, g1] = inst.goal;
  const partner = boxes.get(t.name === g0 ? g1 : t.name === g1 ? g0 : "");
  if (!partner) return 0;
  const dx = Math.min(Math.max(t.cx, partner.left), partner.right) - t.cx;
  const ty = (t.bottom + t.top) / 2;
  const dy = Math.min(Math.max(ty, partner.bottom), partner.top) - ty;
  if (Math.abs(dx) > 0.3 * Math.abs(dy)) return Math.sign(dx);
  const support = staticBelow(boxes, t, partner.name);
  if (!support) return 0;
  const toLeft = t.cx - support.left;
  const toRight = support.right - t.cx;
  // Near the middle of its support neither edge is clearly closer.
  if (Math.abs(toLeft - toRight) < 0.2 * (support.right - support.left)) return 0;
  return toLeft < toRight ? -1 : 1;
};

/** A level bar carrying the first goal object on one arm is a lever: that arm's side (−1/+1), else 0. */
const leverSide = (inst: LevelInstance, boxes: Map<string, Box>, t: Box): number => {
  const o = inst.scene[t.name];
  if (o?.type !== "bar" || !o.dynamic || Math.abs(Math.sin((o.angle * Math.PI) / 180)) > 0.5) return 0;
  const g = boxes.get(inst.goal[0]);
  if (!g || g.name === t.name || Math.abs(g.bottom - t.top) > 0.05 || g.cx < t.left || g.cx > t.right) return 0;
  return Math.sign(g.cx - t.cx);
};

const OFFSETS = [-0.9, -0.6, -0.3, 0, 0.3, 0.6, 0.9];
const DROP_HEIGHTS = [0.1, 1, 2.5];
const UNDER_GAPS = [0.3, 1.5];
const RANDOM_FILL = 40;
const SLOPE_POINTS = [0.15, 0.3, 0.45, 0.6, 0.75, 0.9];
const SLOPE_GAPS = [0.02, 0.5, 1.2];

/** Radii to try: the level default and two heavier balls (mass grows with r², so a big ball pushes harder). */
const radiiOf = (inst: LevelInstance): number[] => {
  const [lo, hi] = inst.bounds.radius;
  const rs = [inst.defaultRadius, 1, 1.5].map((r) => Math.min(hi, Math.max(lo, r)));
  return [...new Set(rs.map((r) => Math.round(r * 1e4) / 1e4))];
};

const round4 = (v: number) => Math.round(v * 1e4) / 1e4;

type Add = (raw: Action, family: string, prior: number, why: string) => void;

/**
 * Moves aimed at one object: dropped onto it at several offsets and heights (landing on the side away from
 * where it should go pushes it that way), and, for a dynamic object, put into its fall path or on the
 * surface under it.
 */
const targetMoves = (inst: LevelInstance, boxes: Map<string, Box>, t: Box, add: Add) => {
  const [g0, g1] = inst.goal;
  const statics = Object.values(inst.scene)
    .filter((o) => !o.dynamic)
    .map((o) => shapesOf(o));
  // A static surface between the ball and its target (a ceiling, a platform) makes the move pointless.
  const blocked = (x: number, lo: number, hi: number) => statics.some((sh: Shape[]) => crossings(sh, x).some((y) => y > lo && y < hi));
  const lever = leverSide(inst, boxes, t);
  const base = t.name === g0 || lever !== 0 ? 3 : t.name === g1 ? 2 : 1.5;
  // Pressing a lever's free arm is a push toward the loaded arm's side.
  const dir = lever || pushDirection(inst, boxes, t);
  const half = (t.right - t.left) / 2;
  for (const radius of radiiOf(inst)) {
    const heavy = radius >= 1.5 ? 0.3 : radius >= 1 ? 0.2 : 0;
    for (const f of OFFSETS) {
      // On a target wider than the ball, f is a point along its top; otherwise f sets the contact angle.
      const x = t.cx + f * (half > radius ? half : half + radius);
      const side = f === 0 ? "centre" : `${f < 0 ? "left" : "right"} ${Math.abs(f)}`;
      const aim = -dir * Math.sign(f) * (1 - Math.abs(Math.abs(f) - 0.6) / 1.5);
      DROP_HEIGHTS.forEach((h, i) => {
        if (blocked(x, t.top, t.top + h)) return;
        const why = `drop r=${radius} ${h} m above ${t.name} (${side} of its width)`;
        add({ x, y: t.top + radius + h, radius }, `drop:${t.name}`, base + 1 + aim + heavy + [0, 0.3, 0.2][i]!, why);
      });
      if (!t.dynamic || f === 0) continue;
      const prior = base + 0.3 + aim * 0.5 + heavy;
      for (const gap of UNDER_GAPS) {
        if (blocked(x, t.bottom - gap, t.bottom)) continue;
        add({ x, y: t.bottom - radius - gap, radius }, `under:${t.name}`, prior, `put r=${radius} in the fall path ${gap} m below ${t.name} (${side})`);
      }
      const floor = below(boxes, x, t.bottom);
      if (floor) add({ x, y: floor.top + radius + 0.01, radius }, `under:${t.name}`, prior, `rest r=${radius} on ${floor.name} under ${t.name} (${side})`);
    }
  }
};

/** Balls set on or dropped onto each static slope, to roll down it; rolling toward the goal is preferred. */
const slopeMoves = (inst: LevelInstance, boxes: Map<string, Box>, add: Add) => {
  const g = boxes.get(inst.goal[0]);
  const goalDir = g ? pushDirection(inst, boxes, g) : 0;
  for (const [name, o] of Object.entries(inst.scene)) {
    if (o.dynamic || o.type !== "bar") continue;
    const a = (o.angle * Math.PI) / 180;
    const [c, s] = [Math.cos(a), Math.sin(a)];
    // Between about 8° and 80°: flatter bars are floors, steeper ones walls.
    if (Math.abs(s) < 0.14 || Math.abs(c) < 0.17) continue;
    const n = c > 0 ? [-s, c] : [s, -c];
    const downhill = -Math.sign(s * c);
    for (const radius of radiiOf(inst)) {
      for (const u of SLOPE_POINTS) {
        SLOPE_GAPS.forEach((gap, i) => {
          const along = (u - 0.5) * o.length;
          const lift = o.thickness / 2 + radius + gap;
          const raw = { x: o.x + along * c + n[0]! * lift, y: o.y + along * s + n[1]! * lift, radius };
          const on = i === 0 ? "rest" : `drop ${gap} m above`;
          const why = `${on} r=${radius} on slope ${name} at ${u} of its length, to roll ${downhill < 0 ? "left" : "right"}`;
          add(raw, `slope:${name}`, 3 + downhill * goalDir + (radius >= 1 ? 0.2 : 0) - 0.1 * i, why);
        });
      }
    }
  }
};

/**
 * Generic placements, none level-specific: moves aimed at each dynamic or small goal object, balls rolled
 * down static slopes, and uniform random fill. Invalid ones are dropped with the local placement check
 * (no turn spent).
 */
export const genericCandidates = (inst: LevelInstance, rng: Rng): Candidate[] => {
  const boxes = boxesOf(inst);
  const [g0, g1] = inst.goal;
  const out: Candidate[] = [];
  // Offsets past a wall are pulled back inside: "as far to that side as fits" is still a distinct move.
  const [xLo, xHi] = [Math.max(-5, inst.bounds.x[0]), Math.min(5, inst.bounds.x[1])];
  const add: Add = (raw, family, prior, why) => {
    const x = round4(Math.min(xHi - raw.radius - 0.01, Math.max(xLo + raw.radius + 0.01, raw.x)));
    const p = checkPlacement(inst.scene, { x, y: round4(raw.y), radius: raw.radius }, inst.bounds);
    if (p.ok && !out.some((c) => c.action.x === p.action.x && c.action.y === p.action.y && c.action.radius === p.action.radius)) {
      out.push({ action: p.action, family, prior, why });
    }
  };
  for (const t of boxes.values()) {
    if (t.dynamic || ((t.name === g0 || t.name === g1) && t.right - t.left < 4)) targetMoves(inst, boxes, t, add);
  }
  slopeMoves(inst, boxes, add);
  const [rLo, rHi] = inst.bounds.radius;
  for (let i = 0; i < RANDOM_FILL; i++) {
    const radius = round4(rng.random() < 0.5 ? inst.defaultRadius : rng.uniform(rLo, rHi));
    const x = rng.uniform(Math.max(-5 + radius, inst.bounds.x[0]), Math.min(5 - radius, inst.bounds.x[1]));
    const y = rng.uniform(Math.max(-5 + radius, inst.bounds.y[0]), Math.min(5 - radius, inst.bounds.y[1]));
    add({ x, y, radius }, "random", 0.5, `random placement r=${radius}`);
  }
  return out;
};
