import { BoxShape, CircleShape, PolygonShape, World, type Body, type Contact, type Shape } from "planck";
import "./broad-phase-order.ts";
import { InvariantError } from "../../../src/errors.ts";
import {
  GRAVITY_Y,
  POSITION_ITERATIONS,
  TIME_STEP_F32,
  VELOCITY_ITERATIONS,
  WALL_CENTRE,
  WALL_FRICTION,
  WALL_HALF_LENGTH,
  WALL_HALF_THICKNESS,
  WALL_NAMES,
  WALL_RESTITUTION,
  degToRad,
  round8,
} from "./constants.ts";
import type { BodyState, ContactCallback, CreateEngine, PhysicsEngine } from "./engine.ts";
import type { BallObject, BarObject, BasketObject, SceneObject } from "./scene.ts";
import { basketFixtures } from "./basket-geometry.ts";

type Vec = { x: number; y: number };
interface PlanckPolygon {
  m_vertices: Vec[];
  m_normals: Vec[];
}
interface PlanckSweep {
  a: number;
  a0: number;
}

/**
 * planck's box lists its corners from (hx, −hy); Box2D 2.3's SetAsBox starts at (−hx, −hy). The solver visits
 * manifold points in vertex order, so we rotate planck's arrays into Box2D's order.
 */
const box23 = (hx: number, hy: number, center?: Vec): BoxShape => {
  const box = center ? new BoxShape(hx, hy, center, 0) : new BoxShape(hx, hy);
  const p = box as unknown as PlanckPolygon;
  p.m_vertices.unshift(p.m_vertices.pop()!);
  p.m_normals.unshift(p.m_normals.pop()!);
  return box;
};

/**
 * Box2D 2.3 damps with v·clamp(1 − h·c, 0, 1); planck with v / (1 + h·c). This coefficient makes planck's
 * formula give 2.3's factor (docs/spec/interphyre.md §1.3a); it is not a change of the material constant.
 */
const box23Damping = (c: number): number => {
  const hc = TIME_STEP_F32 * c;
  return hc >= 1 ? Number.MAX_VALUE : c / (1 - hc);
};

interface Material {
  density: number;
  friction: number;
  restitution: number;
}
const materialOf = (o: SceneObject): Material => ({
  density: round8(o.density),
  friction: round8(o.friction),
  restitution: round8(o.restitution),
});

class PlanckEngine implements PhysicsEngine {
  private readonly world: World;
  private readonly bodies = new Map<string, Body>();

  constructor(onContact: ContactCallback) {
    this.world = new World({
      gravity: { x: 0, y: GRAVITY_Y },
      allowSleep: true,
      warmStarting: true,
      continuousPhysics: true,
      subStepping: false,
      blockSolve: true,
    });
    const report = (kind: "begin" | "end") => (c: Contact) =>
      onContact(kind, c.getFixtureA().getBody().getUserData() as string, c.getFixtureB().getBody().getUserData() as string);
    this.world.on("begin-contact", report("begin"));
    this.world.on("end-contact", report("end"));
    this.addWalls();
  }

  /** create_walls(world, 0.01, 10, 10): left, right, top, bottom, with Box2D's default fixture def. */
  private addWalls(): void {
    const centres: Vec[] = [
      { x: -WALL_CENTRE, y: 0 },
      { x: WALL_CENTRE, y: 0 },
      { x: 0, y: WALL_CENTRE },
      { x: 0, y: -WALL_CENTRE },
    ];
    WALL_NAMES.forEach((name, i) => {
      const vertical = i < 2;
      const body = this.world.createBody({ type: "static", position: centres[i]!, userData: name });
      const [hx, hy] = vertical ? [WALL_HALF_THICKNESS, WALL_HALF_LENGTH] : [WALL_HALF_LENGTH, WALL_HALF_THICKNESS];
      body.createFixture({ shape: box23(hx, hy), density: 0, friction: WALL_FRICTION, restitution: WALL_RESTITUTION });
    });
  }

  private createBody(name: string, o: SceneObject, damping: boolean): Body {
    const angle = degToRad(o.angle);
    const body = this.world.createBody({
      type: o.dynamic ? "dynamic" : "static",
      position: { x: round8(o.x), y: round8(o.y) },
      angle,
      bullet: o.dynamic,
      linearDamping: damping ? box23Damping(round8(o.linear_damping)) : 0,
      angularDamping: damping ? box23Damping(round8(o.angular_damping)) : 0,
      userData: name,
    });
    // planck stores atan2(sin a, cos a) and so normalises the angle; Box2D keeps it as given.
    const sweep = (body as unknown as { m_sweep: PlanckSweep }).m_sweep;
    sweep.a = sweep.a0 = angle;
    return body;
  }

  private addBall(name: string, o: BallObject): Body {
    const body = this.createBody(name, o, true);
    body.createFixture({ shape: new CircleShape(round8(o.radius)), ...materialOf(o) });
    return body;
  }

  private addBar(name: string, o: BarObject): Body {
    const body = this.createBody(name, o, true);
    const shape = box23(round8(round8(o.length) / 2), round8(round8(o.thickness) / 2));
    body.createFixture({ shape, ...materialOf(o) });
    return body;
  }

  /** Floor, left wall, right wall, sensor, in create_basket's order; baskets are never damped. */
  private addBasket(name: string, o: BasketObject): Body {
    const body = this.createBody(name, o, false);
    const material = materialOf(o);
    for (const f of basketFixtures(o)) {
      const shape: Shape = f.kind === "box" ? box23(f.hx, f.hy, { x: f.cx, y: f.cy }) : new PolygonShape(f.vertices.map(([x, y]) => ({ x, y })));
      if (f.sensor) body.createFixture({ shape, density: 0, isSensor: true, userData: `${name}_sensor` });
      else body.createFixture({ shape, ...material });
    }
    return body;
  }

  add(name: string, obj: SceneObject): void {
    if (this.bodies.has(name)) throw new InvariantError(`engine: object '${name}' already exists`);
    const body = obj.type === "ball" ? this.addBall(name, obj) : obj.type === "bar" ? this.addBar(name, obj) : this.addBasket(name, obj);
    this.bodies.set(name, body);
  }

  private body(name: string): Body {
    const b = this.bodies.get(name);
    if (!b) throw new InvariantError(`engine: no object '${name}'; known: ${[...this.bodies.keys()].join(", ")}`);
    return b;
  }

  remove(name: string): void {
    this.world.destroyBody(this.body(name));
    this.bodies.delete(name);
  }

  has(name: string): boolean {
    return this.bodies.has(name);
  }

  step(): void {
    this.world.step(TIME_STEP_F32, VELOCITY_ITERATIONS, POSITION_ITERATIONS);
  }

  state(name: string): BodyState {
    const b = this.body(name);
    const p = b.getPosition();
    const v = b.getLinearVelocity();
    return {
      x: p.x,
      y: p.y,
      angle: b.getAngle(),
      vx: v.x,
      vy: v.y,
      angularVelocity: b.getAngularVelocity(),
      awake: b.isAwake(),
      dynamic: b.isDynamic(),
    };
  }

  names(): string[] {
    return [...this.bodies.keys()];
  }

  asleep(): boolean {
    for (const b of this.bodies.values()) if (b.isDynamic() && b.isAwake()) return false;
    return true;
  }

  applyImpulse(name: string, ix: number, iy: number): void {
    const b = this.body(name);
    b.applyLinearImpulse({ x: ix, y: iy }, b.getWorldCenter(), true);
  }

  setVelocity(name: string, vx: number, vy: number, angularVelocity: number): void {
    const b = this.body(name);
    b.setLinearVelocity({ x: vx, y: vy });
    b.setAngularVelocity(angularVelocity);
    b.setAwake(true);
  }

  setPose(name: string, x: number, y: number, angle: number): void {
    const b = this.body(name);
    b.setTransform({ x, y }, angle);
    b.setAwake(true);
  }

  freeze(name: string): void {
    const b = this.body(name);
    b.setLinearVelocity({ x: 0, y: 0 });
    b.setAngularVelocity(0);
    b.setStatic();
  }

  destroy(): void {}
}

export const createPlanckEngine: CreateEngine = (onContact) => new PlanckEngine(onContact);
