import { ACTION_OBJECT, SUCCESS_HOLD_S } from "./constants.ts";
import { ContactTracker } from "./contacts.ts";
import type { CreateEngine, PhysicsEngine } from "./engine.ts";
import { createPlanckEngine } from "./planck-engine.ts";
import type { Scene, SceneObject } from "./scene.ts";
import { applyIntervention, type Intervention } from "./intervention.ts";

/** The agent's action: where the red ball goes and how big it is. */
export interface Action {
  x: number;
  y: number;
  radius: number;
}

/** Everything a rollout depends on: the scene, the goal pair and the (already validated) action. */
export interface SimulationSpec {
  scene: Scene;
  goal: readonly [string, string];
  action?: Action | undefined;
}

/** The live state of one object in Interphyre's vocabulary (angle in degrees, as in scenes). */
export interface LiveObject {
  x: number;
  y: number;
  angle: number;
  vx: number;
  vy: number;
  angular_velocity: number;
  awake: boolean;
  dynamic: boolean;
}

export const redBall = (a: Action): SceneObject => ({
  type: "ball",
  x: a.x,
  y: a.y,
  radius: a.radius,
  angle: 0,
  color: "red",
  dynamic: true,
  density: 0.25,
  friction: 0.5,
  restitution: 0.2,
  linear_damping: 0,
  angular_damping: 0.01,
});

export interface SimulationOptions {
  engine?: CreateEngine;
  /** Keep the contact event log (tools need it; searches do not). */
  recordContacts?: boolean;
}

/**
 * One world in motion: engine, contact clock and goal. Built in Interphyre's order — walls, objects by
 * sorted name, the red ball last (docs/spec/interphyre.md §1.4) — because that order decides contact order and so
 * the rollout. Every rollout gets a fresh world: planck never reuses proxy ids, so a reused world would
 * break the broad-phase order.
 */
export class Simulation {
  readonly contacts: ContactTracker;
  readonly engine: PhysicsEngine;
  readonly spec: SimulationSpec;

  constructor(spec: SimulationSpec, options: SimulationOptions = {}) {
    this.spec = spec;
    const contacts = new ContactTracker(options.recordContacts ?? true);
    this.contacts = contacts;
    this.engine = (options.engine ?? createPlanckEngine)((kind, a, b) => contacts.onContact(kind, a, b));
    for (const name of Object.keys(spec.scene).sort()) {
      if (name !== ACTION_OBJECT) this.engine.add(name, spec.scene[name]!);
    }
    if (spec.action) this.engine.add(ACTION_OBJECT, redBall(spec.action));
  }

  get stepCount(): number {
    return this.contacts.step;
  }

  step(): void {
    this.engine.step();
    this.contacts.tick();
  }

  get success(): boolean {
    const [a, b] = this.spec.goal;
    return this.contacts.heldFor(a, b, SUCCESS_HOLD_S);
  }

  /** Frees the engine's world; the final state and the contacts stay readable (engine.ts, `destroy`). */
  close(): void {
    this.engine.destroy();
  }

  /** Nothing dynamic is awake: the outcome can no longer change. */
  get settled(): boolean {
    return this.engine.asleep();
  }

  /** Interventions applied so far, each with the step after which it was applied: the world's recipe. */
  readonly history: { step: number; intervention: Intervention }[] = [];

  apply(intervention: Intervention): void {
    applyIntervention(this.engine, intervention);
    this.history.push({ step: this.stepCount, intervention });
  }

  object(name: string): LiveObject {
    const s = this.engine.state(name);
    return {
      x: s.x,
      y: s.y,
      angle: (s.angle * 180) / Math.PI,
      vx: s.vx,
      vy: s.vy,
      angular_velocity: s.angularVelocity,
      awake: s.awake,
      dynamic: s.dynamic,
    };
  }

  /** Every object's live state, keyed by name like a scene. */
  state(): Record<string, LiveObject> {
    const out: Record<string, LiveObject> = {};
    for (const name of this.engine.names()) out[name] = this.object(name);
    return out;
  }
}
