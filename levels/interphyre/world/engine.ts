import type { SceneObject } from "./scene.ts";

/**
 * The physics engine behind a small interface, so that a faster engine can replace planck without touching
 * levels, tools or the rollout loop. Bodies are addressed by object name; angles are radians here.
 */
export interface BodyState {
  x: number;
  y: number;
  angle: number;
  vx: number;
  vy: number;
  angularVelocity: number;
  awake: boolean;
  dynamic: boolean;
}

/** Fixture-level begin/end between two named bodies; sensors report too (docs/spec/interphyre.md §1.6). */
export type ContactCallback = (kind: "begin" | "end", a: string, b: string) => void;

export interface PhysicsEngine {
  /** Adds one object as a body. Call order is build order, and build order decides the rollout. */
  add(name: string, obj: SceneObject): void;
  remove(name: string): void;
  has(name: string): boolean;
  /** One fixed step of TIME_STEP_S with Interphyre's solver settings. */
  step(): void;
  state(name: string): BodyState;
  /** Names of the scene bodies (walls excluded), in build order. */
  names(): string[];
  /** True when no dynamic body is awake: nothing can move again without an outside push. */
  asleep(): boolean;
  applyImpulse(name: string, ix: number, iy: number): void;
  setVelocity(name: string, vx: number, vy: number, angularVelocity: number): void;
  setPose(name: string, x: number, y: number, angle: number): void;
  /** Makes a body static where it is. */
  freeze(name: string): void;
  /**
   * Frees the world. Afterwards `state`, `names`, `has` and `asleep` answer with the bodies as they were and
   * anything else throws. planck's world is garbage-collected; box2d-wasm's lives on the wasm heap until this.
   */
  destroy(): void;
}

export type CreateEngine = (onContact: ContactCallback) => PhysicsEngine;
