import { Box, Polygon, Vec2, World, type Body } from "planck";

/**
 * A simplified 2D LunarLander on planck for the reward-search family: one rigid body (a box hull with two
 * splayed legs as extra fixtures of the same body), flat ground with a landing pad, a main engine along the
 * body's up axis and two side thrusters, no wind. Thrust is given as a multiple of the lander's weight, so the
 * lander's mass does not change its dynamics. Units: metres, seconds, radians; y up, the ground at y = 0.
 */
export const LANDER = {
  /** Step length [s] (30 Hz) and planck's solver iterations. */
  dt: 1 / 30,
  velocityIterations: 8,
  positionIterations: 3,
  /** Hull box half-extents [m]. */
  hullHalfWidth: 0.5,
  hullHalfHeight: 0.35,
  /** Height of the body centre above the ground when standing on both legs [m] (the legs' feet are at −0.75). */
  standHeight: 0.75,
  /** The world: |x| ≤ 10 m, y ≤ 15 m, otherwise out of bounds. */
  halfWidth: 10,
  ceiling: 15,
  /** Side thrusters act at this height above the body centre [m] (so they also turn the lander). */
  sideArm: 0.25,
  /** A leg touching down faster than this [m/s] is a crash. */
  maxTouchdownSpeed: 2.5,
  /** At rest: both legs down, speed below restSpeed [m/s] and |ω| below restSpin [rad/s] for restSteps steps. */
  restSpeed: 0.1,
  restSpin: 0.1,
  restSteps: 10,
  friction: 0.8,
  density: 1.0,
} as const;

export interface LanderParams {
  /** Gravity [m/s²], positive down. */
  gravity: number;
  /** Main engine thrust as a multiple of the lander's weight. */
  mainThrust: number;
  /** Each side thruster's thrust as a multiple of the lander's weight. */
  sideThrust: number;
  /** Pad centre x [m] and half-width [m]. */
  padX: number;
  padHalfWidth: number;
}

/** Discrete actions, LunarLander's order. */
export const LANDER_ACTIONS = ["noop", "fire_left", "fire_main", "fire_right"] as const;

export interface LanderInit {
  x: number;
  y: number;
  vx: number;
  vy: number;
  angle: number;
  angularVelocity: number;
}

/** What one step reports (besides the state read through `read`). */
export interface LanderStepReport {
  leftLeg: boolean;
  rightLeg: boolean;
  hullContact: boolean;
  crashed: boolean;
  landed: boolean;
  outOfBounds: boolean;
}

type Part = "hull" | "left_leg" | "right_leg" | "ground";

/** One lander world. `reset` builds a fresh planck world, so an episode never depends on the one before. */
export class LanderWorld {
  private world!: World;
  private body!: Body;
  private restCount = 0;
  private legsDown = false;
  readonly report: LanderStepReport = { leftLeg: false, rightLeg: false, hullContact: false, crashed: false, landed: false, outOfBounds: false };

  constructor(readonly params: LanderParams) {}

  reset(s: LanderInit): void {
    const p = this.params;
    const world = new World({ gravity: new Vec2(0, -p.gravity) });
    const ground = world.createBody();
    ground.createFixture({ shape: new Box(LANDER.halfWidth + 5, 1, new Vec2(0, -1), 0), friction: LANDER.friction, userData: "ground" satisfies Part });
    const body = world.createDynamicBody({ position: new Vec2(s.x, s.y), angle: s.angle, allowSleep: false });
    body.createFixture({
      shape: new Box(LANDER.hullHalfWidth, LANDER.hullHalfHeight),
      density: LANDER.density,
      friction: LANDER.friction,
      userData: "hull" satisfies Part,
    });
    for (const side of [-1, 1]) {
      const leg = new Polygon([new Vec2(side * 0.35, -0.3), new Vec2(side * 0.45, -0.3), new Vec2(side * 0.75, -0.75), new Vec2(side * 0.65, -0.75)]);
      body.createFixture({ shape: leg, density: LANDER.density, friction: LANDER.friction, userData: (side < 0 ? "left_leg" : "right_leg") satisfies Part });
    }
    body.setLinearVelocity(new Vec2(s.vx, s.vy));
    body.setAngularVelocity(s.angularVelocity);
    this.world = world;
    this.body = body;
    this.restCount = 0;
    this.legsDown = false;
    Object.assign(this.report, { leftLeg: false, rightLeg: false, hullContact: false, crashed: false, landed: false, outOfBounds: false });
  }

  /** Apply one action (index into LANDER_ACTIONS) for one step and advance the world. */
  step(action: number): LanderStepReport {
    const p = this.params;
    const body = this.body;
    const weight = body.getMass() * p.gravity;
    const before = body.getLinearVelocity();
    const speedBefore = Math.hypot(before.x, before.y);
    if (action === 2) {
      body.applyForceToCenter(body.getWorldVector(new Vec2(0, p.mainThrust * weight)), true);
    } else if (action === 1 || action === 3) {
      // fire_left: the left thruster pushes toward +x of the body; fire_right: toward −x.
      const dir = action === 1 ? 1 : -1;
      body.applyForce(body.getWorldVector(new Vec2(dir * p.sideThrust * weight, 0)), body.getWorldPoint(new Vec2(0, LANDER.sideArm)), true);
    }
    this.world.step(LANDER.dt, LANDER.velocityIterations, LANDER.positionIterations);

    let left = false,
      right = false,
      hull = false;
    for (let c = this.world.getContactList(); c; c = c.getNext()) {
      if (!c.isTouching()) continue;
      const a = c.getFixtureA().getUserData() as Part;
      const b = c.getFixtureB().getUserData() as Part;
      const other: Part | null = a === "ground" ? b : b === "ground" ? a : null;
      if (other === "left_leg") left = true;
      else if (other === "right_leg") right = true;
      else if (other === "hull") hull = true;
    }
    const r = this.report;
    const v = body.getLinearVelocity();
    const pos = body.getPosition();
    const touchdown = (left || right) && !this.legsDown;
    this.legsDown = left || right;
    r.leftLeg = left;
    r.rightLeg = right;
    r.hullContact = hull;
    r.crashed = hull || (touchdown && speedBefore > LANDER.maxTouchdownSpeed);
    r.outOfBounds = Math.abs(pos.x) > LANDER.halfWidth || pos.y > LANDER.ceiling;
    const still = left && right && Math.hypot(v.x, v.y) < LANDER.restSpeed && Math.abs(body.getAngularVelocity()) < LANDER.restSpin;
    this.restCount = still ? this.restCount + 1 : 0;
    r.landed = !r.crashed && this.restCount >= LANDER.restSteps;
    return r;
  }

  /** x, y [m], vx, vy [m/s], angle [rad], angular velocity [rad/s] of the body centre (angle wrapped to [−π, π]), into out[off..off+6). */
  read(out: Float64Array, off: number): void {
    const b = this.body;
    const pos = b.getPosition();
    const v = b.getLinearVelocity();
    out[off] = pos.x;
    out[off + 1] = pos.y;
    out[off + 2] = v.x;
    out[off + 3] = v.y;
    const a = b.getAngle();
    out[off + 4] = a - 2 * Math.PI * Math.round(a / (2 * Math.PI));
    out[off + 5] = b.getAngularVelocity();
  }
}
