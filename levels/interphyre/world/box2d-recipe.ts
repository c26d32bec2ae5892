import { basketFixtures } from "./basket-geometry.ts";
import { box23Coefficient } from "./box2d-damping.ts";
import { degToRad, round8, WALL_CENTRE, WALL_FRICTION, WALL_HALF_LENGTH, WALL_HALF_THICKNESS, WALL_NAMES, WALL_RESTITUTION } from "./constants.ts";
import type { SceneObject } from "./scene.ts";

/** A box without `centre` is Box2D's SetAsBox(hx, hy); with one, SetAsBox(hx, hy, centre, 0). */
type ShapeRecipe =
  | { kind: "circle"; radius: number }
  | { kind: "box"; hx: number; hy: number; centre?: [number, number] }
  | { kind: "polygon"; vertices: [number, number][] };

export interface FixtureRecipe {
  shape: ShapeRecipe;
  density: number;
  friction: number;
  restitution: number;
  sensor: boolean;
}

/** One Box2D body as box2d-engine.ts creates it: dynamic bodies are bullets; damping is already Box2D 2.4.1's coefficient. */
export interface BodyRecipe {
  x: number;
  y: number;
  angle: number;
  dynamic: boolean;
  linearDamping: number;
  angularDamping: number;
  fixtures: FixtureRecipe[];
}

const staticBody = (x: number, y: number, fixtures: FixtureRecipe[]): BodyRecipe => ({
  x,
  y,
  angle: 0,
  dynamic: false,
  linearDamping: 0,
  angularDamping: 0,
  fixtures,
});

/** create_walls(world, 0.01, 10, 10): left, right, top, bottom (WALL_NAMES' order), with Box2D's default fixture def. */
export const WALL_RECIPES: readonly (BodyRecipe & { name: (typeof WALL_NAMES)[number] })[] = WALL_NAMES.map((name, i) => {
  const [x, y] = (
    [
      [-WALL_CENTRE, 0],
      [WALL_CENTRE, 0],
      [0, WALL_CENTRE],
      [0, -WALL_CENTRE],
    ] as const
  )[i]!;
  const [hx, hy] = i < 2 ? [WALL_HALF_THICKNESS, WALL_HALF_LENGTH] : [WALL_HALF_LENGTH, WALL_HALF_THICKNESS];
  return { name, ...staticBody(x, y, [{ shape: { kind: "box", hx, hy }, density: 0, friction: WALL_FRICTION, restitution: WALL_RESTITUTION, sensor: false }]) };
});

/**
 * A scene object's body: Interphyre's values rounded to 8 decimals, degrees to radians, Box2D 2.3's damping
 * (docs/spec/interphyre.md §1.3a, §1.3c; baskets are never damped), a basket's fixtures in create_basket's order.
 */
export const bodyRecipe = (o: SceneObject): BodyRecipe => {
  const damped = o.type !== "basket";
  const material = { density: round8(o.density), friction: round8(o.friction), restitution: round8(o.restitution) };
  const fixtures: FixtureRecipe[] =
    o.type === "ball"
      ? [{ shape: { kind: "circle", radius: round8(o.radius) }, ...material, sensor: false }]
      : o.type === "bar"
        ? [{ shape: { kind: "box", hx: round8(round8(o.length) / 2), hy: round8(round8(o.thickness) / 2) }, ...material, sensor: false }]
        : basketFixtures(o).map((f) => ({
            shape: f.kind === "box" ? { kind: "box", hx: f.hx, hy: f.hy, centre: [f.cx, f.cy] } : { kind: "polygon", vertices: f.vertices },
            ...(f.sensor ? { density: 0, friction: material.friction, restitution: material.restitution } : material),
            sensor: f.sensor,
          }));
  return {
    x: round8(o.x),
    y: round8(o.y),
    angle: degToRad(o.angle),
    dynamic: o.dynamic,
    linearDamping: box23Coefficient(damped ? round8(o.linear_damping) : 0),
    angularDamping: box23Coefficient(damped ? round8(o.angular_damping) : 0),
    fixtures,
  };
};
