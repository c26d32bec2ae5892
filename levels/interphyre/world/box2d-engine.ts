import { InvariantError } from "../../../src/errors.ts";
import { GRAVITY_Y, POSITION_ITERATIONS, TIME_STEP_F32, VELOCITY_ITERATIONS } from "./constants.ts";
import type { BodyState, ContactCallback, CreateEngine, PhysicsEngine } from "./engine.ts";
import type { SceneObject } from "./scene.ts";
import { type BodyRecipe, bodyRecipe, type FixtureRecipe, WALL_RECIPES } from "./box2d-recipe.ts";
import { box2d } from "./box2d-wasm.ts";
import { contactListener } from "./box2d-listener.ts";

type Body = Box2D.b2Body;
type Fixture = Box2D.b2Fixture;
const { b2BodyDef, b2FixtureDef, b2Vec2, b2CircleShape, b2PolygonShape, b2World, b2Body, b2Fixture } = box2d;
const { destroy, getPointer, LeakMitigator, pointsToVec2Array } = box2d;

/** The bindings' own accessors, taking and giving addresses: no wrapper object per contact. */
interface ContactAccessors {
  _emscripten_bind_b2Contact_GetFixtureA_0(contact: number): number;
  _emscripten_bind_b2Contact_GetFixtureB_0(contact: number): number;
}
const { _emscripten_bind_b2Contact_GetFixtureA_0: fixtureA, _emscripten_bind_b2Contact_GetFixtureB_0: fixtureB } = box2d as unknown as ContactAccessors;

// Definitions are copied by CreateBody/CreateFixture, so one of each serves every world of the process.
const bodyDef = new b2BodyDef();
const fixtureDef = new b2FixtureDef();
const vec = new b2Vec2(0, 0);
const circle = new b2CircleShape();
const polygon = new b2PolygonShape();
const at = (x: number, y: number): Box2D.b2Vec2 => (vec.Set(x, y), vec);

/**
 * Everything one world owns on the wasm heap and in the bindings' wrapper caches; what `release` frees.
 * It holds no reference to the engine, so a finalizer can free a world whose engine was dropped unclosed.
 */
interface Owned {
  world: Box2D.b2World;
  listener: Box2D.JSContactListener;
  fixtures: Map<number, string>;
  bodies: Set<Body>;
  fixtureWrappers: Set<Fixture>;
  freed: boolean;
}

const release = (o: Owned): void => {
  if (o.freed) return;
  o.freed = true;
  for (const b of o.bodies) forget(b, viewsOf(b));
  for (const f of o.fixtureWrappers) LeakMitigator.freeFromCache(f, b2Fixture);
  o.bodies.clear();
  o.fixtureWrappers.clear();
  o.fixtures.clear();
  destroy(o.world);
  destroy(o.listener);
};

/** The wrappers of a body's vectors that `state` and `applyImpulse` read, cached by the bindings per body. */
const viewsOf = (b: Body): Box2D.b2Vec2[] => [b.GetPosition(), b.GetLinearVelocity(), b.GetWorldCenter()];

/** Drops a body's wrapper and its vector views from the bindings' caches, so no JS object outlives it. */
const forget = (b: Body, views: Box2D.b2Vec2[]): void => {
  for (const v of views) LeakMitigator.freeFromCache(v, b2Vec2);
  LeakMitigator.freeFromCache(b, b2Body);
};

const finalizer = new FinalizationRegistry<Owned>(release);

/**
 * The engine on box2d-wasm (Box2D 2.4.1), with the behaviour planck-engine.ts gives planck where it needs no
 * engine internals (docs/spec/interphyre.md §1.3c): float32 dt, Box2D 2.3's damping factor, sensors reporting
 * contacts, walls and objects built in Interphyre's order. 2.4.1 keeps the angle as given and lists box corners
 * as 2.3 does, so neither needs a fix here. Its broad-phase pair order is 2.4.1's own: changing it needs the
 * engine's internals.
 */
class Box2DEngine implements PhysicsEngine {
  private readonly owned: Owned;
  private readonly bodies = new Map<string, Body>();
  /** The last state of every body, kept by `destroy` so a finished rollout stays readable. */
  private final: Map<string, BodyState> | undefined;

  constructor(onContact: ContactCallback) {
    const fixtures = new Map<number, string>();
    const report = (kind: "begin" | "end") => (contact: number) => onContact(kind, fixtures.get(fixtureA(contact))!, fixtures.get(fixtureB(contact))!);
    const listener = contactListener(report("begin"), report("end"));
    const world = new b2World(at(0, GRAVITY_Y));
    world.SetAllowSleeping(true);
    world.SetWarmStarting(true);
    world.SetContinuousPhysics(true);
    world.SetSubStepping(false);
    world.SetContactListener(listener);
    this.owned = { world, listener, fixtures, bodies: new Set(), fixtureWrappers: new Set(), freed: false };
    finalizer.register(this, this.owned, this.owned);
    this.addWalls();
  }

  private addWalls(): void {
    for (const wall of WALL_RECIPES) this.build(wall.name, wall);
  }

  /** Creates a body and its fixtures as the recipe (box2d-recipe.ts) says. */
  private build(name: string, r: BodyRecipe): Body {
    bodyDef.set_type(r.dynamic ? box2d.b2_dynamicBody : box2d.b2_staticBody);
    bodyDef.set_position(at(r.x, r.y));
    bodyDef.set_angle(r.angle);
    bodyDef.set_bullet(r.dynamic);
    bodyDef.set_linearDamping(r.linearDamping);
    bodyDef.set_angularDamping(r.angularDamping);
    const body = this.owned.world.CreateBody(bodyDef);
    this.owned.bodies.add(body);
    for (const f of r.fixtures) this.fixture(name, body, f);
    return body;
  }

  private fixture(name: string, body: Body, f: FixtureRecipe): void {
    const s = f.shape;
    if (s.kind === "circle") circle.set_m_radius(s.radius);
    else if (s.kind === "box") {
      if (s.centre) polygon.SetAsBox(s.hx, s.hy, at(...s.centre), 0);
      else polygon.SetAsBox(s.hx, s.hy);
    } else {
      const [vertices, free] = pointsToVec2Array(s.vertices.map(([x, y]) => ({ x, y })));
      polygon.Set(vertices, s.vertices.length);
      free();
    }
    fixtureDef.set_shape(s.kind === "circle" ? circle : polygon);
    fixtureDef.set_density(f.density);
    fixtureDef.set_friction(f.friction);
    fixtureDef.set_restitution(f.restitution);
    fixtureDef.set_isSensor(f.sensor);
    const fixture = body.CreateFixture(fixtureDef);
    this.owned.fixtureWrappers.add(fixture);
    this.owned.fixtures.set(getPointer(fixture), name);
  }

  add(name: string, o: SceneObject): void {
    this.live();
    if (this.bodies.has(name)) throw new InvariantError(`engine: object '${name}' already exists`);
    this.bodies.set(name, this.build(name, bodyRecipe(o)));
  }

  private live(): void {
    if (this.owned.freed) throw new InvariantError("engine: this box2d-wasm world was destroyed; build a new Simulation");
  }

  private body(name: string): Body {
    this.live();
    const b = this.bodies.get(name);
    if (!b) throw new InvariantError(`engine: no object '${name}'; known: ${[...this.bodies.keys()].join(", ")}`);
    return b;
  }

  remove(name: string): void {
    const b = this.body(name);
    const fixtures: Fixture[] = [];
    for (let f = b.GetFixtureList(); getPointer(f) !== 0; f = f.GetNext()) fixtures.push(f);
    const views = viewsOf(b);
    // Destroying reports the body's touching contacts as ended, so its fixtures must still have names here.
    this.owned.world.DestroyBody(b);
    forget(b, views);
    this.owned.bodies.delete(b);
    for (const f of fixtures) {
      this.owned.fixtures.delete(getPointer(f));
      this.owned.fixtureWrappers.delete(f);
      LeakMitigator.freeFromCache(f, b2Fixture);
    }
    this.bodies.delete(name);
  }

  has(name: string): boolean {
    return this.final ? this.final.has(name) : this.bodies.has(name);
  }

  step(): void {
    this.live();
    this.owned.world.Step(TIME_STEP_F32, VELOCITY_ITERATIONS, POSITION_ITERATIONS);
  }

  state(name: string): BodyState {
    const kept = this.final?.get(name);
    if (kept) return { ...kept };
    const b = this.body(name);
    const p = b.GetPosition();
    const v = b.GetLinearVelocity();
    return {
      x: p.get_x(),
      y: p.get_y(),
      angle: b.GetAngle(),
      vx: v.get_x(),
      vy: v.get_y(),
      angularVelocity: b.GetAngularVelocity(),
      awake: b.IsAwake(),
      dynamic: b.GetType() === box2d.b2_dynamicBody,
    };
  }

  names(): string[] {
    return [...(this.final ?? this.bodies).keys()];
  }

  asleep(): boolean {
    if (this.final) return [...this.final.values()].every((s) => !(s.dynamic && s.awake));
    for (const b of this.bodies.values()) if (b.GetType() === box2d.b2_dynamicBody && b.IsAwake()) return false;
    return true;
  }

  applyImpulse(name: string, ix: number, iy: number): void {
    const b = this.body(name);
    b.ApplyLinearImpulse(at(ix, iy), b.GetWorldCenter(), true);
  }

  setVelocity(name: string, vx: number, vy: number, angularVelocity: number): void {
    const b = this.body(name);
    b.SetLinearVelocity(at(vx, vy));
    b.SetAngularVelocity(angularVelocity);
    b.SetAwake(true);
  }

  setPose(name: string, x: number, y: number, angle: number): void {
    const b = this.body(name);
    b.SetTransform(at(x, y), angle);
    b.SetAwake(true);
  }

  freeze(name: string): void {
    const b = this.body(name);
    b.SetLinearVelocity(at(0, 0));
    b.SetAngularVelocity(0);
    b.SetType(box2d.b2_staticBody);
  }

  destroy(): void {
    if (this.owned.freed) return;
    const final = new Map<string, BodyState>();
    for (const name of this.bodies.keys()) final.set(name, this.state(name));
    this.final = final;
    this.bodies.clear();
    finalizer.unregister(this.owned);
    release(this.owned);
  }
}

export const createBox2DEngine: CreateEngine = (onContact) => new Box2DEngine(onContact);
