import { Box, RevoluteJoint, Vec2, World, type Body } from "planck";

/**
 * A planar two-legged walker on planck for the reward-search family (half-cheetah-like, few bodies): a torso
 * box with a back and a front leg, each a thigh and a shin on motorised revolute joints (hip, knee), on flat
 * ground. Torques are applied BipedalWalker-style: each joint motor runs toward ±its speed limit with a
 * maximum torque of |action| × its torque limit. The walker's own parts do not collide with each other.
 * Units: metres, seconds, radians, newton-metres; y up, the ground at y = 0.
 */
const WALKER = {
  dt: 1 / 30,
  velocityIterations: 8,
  positionIterations: 3,
  torsoHalfWidth: 0.5,
  torsoHalfHeight: 0.1,
  /** Hips sit at the torso's bottom corners, ±hipX from its centre. */
  hipX: 0.45,
  segmentLength: 0.4,
  segmentHalfWidth: 0.04,
  density: 5,
  hipLimit: [-1.0, 1.0],
  kneeLimit: [-1.4, 0.2],
  hipSpeed: 4,
  kneeSpeed: 6,
  /** Height of the torso centre at the start (feet 0.02 m above the ground). */
  startHeight: 1.02,
} as const;

export interface WalkerParams {
  gravity: number;
  /** Torque limit of every joint [N·m]. */
  motorTorque: number;
  friction: number;
}

/** Joint order of actions and observations. */
export const WALKER_JOINTS = ["back_hip", "back_knee", "front_hip", "front_knee"] as const;

const GROUP = -1;

export class WalkerWorld {
  private world!: World;
  private torso!: Body;
  private shins: Body[] = [];
  private joints: RevoluteJoint[] = [];
  readonly contacts = new Uint8Array(2);

  constructor(readonly params: WalkerParams) {}

  /** A fresh world; the walker stands with straight legs, joints perturbed by `jitter` (4 angles [rad]). */
  reset(jitter: readonly number[]): void {
    const p = this.params;
    const w = WALKER;
    const world = new World({ gravity: new Vec2(0, -p.gravity) });
    const ground = world.createBody();
    ground.createFixture({ shape: new Box(1000, 1, new Vec2(0, -1), 0), friction: p.friction, userData: "ground" });
    const y0 = w.startHeight;
    const torso = world.createDynamicBody({ position: new Vec2(0, y0), allowSleep: false });
    torso.createFixture({
      shape: new Box(w.torsoHalfWidth, w.torsoHalfHeight),
      density: w.density,
      friction: p.friction,
      filterGroupIndex: GROUP,
      userData: "torso",
    });
    this.shins = [];
    this.joints = [];
    const L = w.segmentLength;
    for (const side of [-1, 1]) {
      const hip = new Vec2(side * w.hipX, y0 - w.torsoHalfHeight);
      const thigh = world.createDynamicBody({ position: new Vec2(hip.x, hip.y - L / 2), allowSleep: false });
      thigh.createFixture({ shape: new Box(w.segmentHalfWidth, L / 2), density: w.density, friction: p.friction, filterGroupIndex: GROUP, userData: "thigh" });
      const knee = new Vec2(hip.x, hip.y - L);
      const shin = world.createDynamicBody({ position: new Vec2(knee.x, knee.y - L / 2), allowSleep: false });
      shin.createFixture({
        shape: new Box(w.segmentHalfWidth, L / 2),
        density: w.density,
        friction: p.friction,
        filterGroupIndex: GROUP,
        userData: side < 0 ? "back_shin" : "front_shin",
      });
      const hipJoint = world.createJoint(
        new RevoluteJoint(
          { enableLimit: true, lowerAngle: w.hipLimit[0], upperAngle: w.hipLimit[1], enableMotor: true, maxMotorTorque: 0, motorSpeed: 0 },
          torso,
          thigh,
          hip,
        ),
      )!;
      const kneeJoint = world.createJoint(
        new RevoluteJoint(
          { enableLimit: true, lowerAngle: w.kneeLimit[0], upperAngle: w.kneeLimit[1], enableMotor: true, maxMotorTorque: 0, motorSpeed: 0 },
          thigh,
          shin,
          knee,
        ),
      )!;
      this.joints.push(hipJoint, kneeJoint);
      this.shins.push(shin);
    }
    // Start from a slightly perturbed pose: spin each joint's child body by its jitter angle about the joint.
    for (let j = 0; j < 4; j++) {
      const joint = this.joints[j]!;
      const child = joint.getBodyB();
      const anchor = joint.getAnchorA();
      const angle = jitter[j] ?? 0;
      const c = Math.cos(angle),
        s = Math.sin(angle);
      // Rotate the child and every body below it (a knee's shin; a hip's thigh and shin) about the anchor.
      const bodies = j % 2 === 0 ? [child, this.joints[j + 1]!.getBodyB()] : [child];
      for (const b of bodies) {
        const pos = b.getPosition();
        const dx = pos.x - anchor.x,
          dy = pos.y - anchor.y;
        b.setTransform(new Vec2(anchor.x + c * dx - s * dy, anchor.y + s * dx + c * dy), b.getAngle() + angle);
      }
    }
    this.world = world;
    this.torso = torso;
    this.contacts.fill(0);
  }

  /** Apply 4 actions in [−1, 1] (WALKER_JOINTS order, read from a[off..off+4)) for one step. */
  step(a: ArrayLike<number>, off: number): void {
    const tq = this.params.motorTorque;
    for (let j = 0; j < 4; j++) {
      const u = a[off + j]!;
      const speed = j % 2 === 0 ? WALKER.hipSpeed : WALKER.kneeSpeed;
      const joint = this.joints[j]!;
      joint.setMotorSpeed(u >= 0 ? speed : -speed);
      joint.setMaxMotorTorque(tq * Math.min(1, Math.abs(u)));
    }
    this.world.step(WALKER.dt, WALKER.velocityIterations, WALKER.positionIterations);
    this.contacts.fill(0);
    for (let c = this.world.getContactList(); c; c = c.getNext()) {
      if (!c.isTouching()) continue;
      const ua = c.getFixtureA().getUserData();
      const ub = c.getFixtureB().getUserData();
      const other = ua === "ground" ? ub : ub === "ground" ? ua : null;
      if (other === "back_shin") this.contacts[0] = 1;
      else if (other === "front_shin") this.contacts[1] = 1;
    }
  }

  /** Torso x [m]. */
  torsoX(): number {
    return this.torso.getPosition().x;
  }

  /**
   * Observation into out[off..off+13): torso height, angle, vx, vy, angular velocity, the 4 joint angles, the
   * 4 joint speeds (contacts are added by the caller).
   */
  read(out: Float64Array, off: number): void {
    const t = this.torso;
    const v = t.getLinearVelocity();
    out[off] = t.getPosition().y;
    const a = t.getAngle();
    out[off + 1] = a - 2 * Math.PI * Math.round(a / (2 * Math.PI));
    out[off + 2] = v.x;
    out[off + 3] = v.y;
    out[off + 4] = t.getAngularVelocity();
    for (let j = 0; j < 4; j++) {
      out[off + 5 + j] = this.joints[j]!.getJointAngle();
      out[off + 9 + j] = this.joints[j]!.getJointSpeed();
    }
  }
}
