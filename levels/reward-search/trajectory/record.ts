/**
 * One judged episode of a MuJoCo task, step by step (docs/spec/trajectory.md): what a code judge measures and
 * a renderer draws. Columnar: each per-step quantity is one flat array of `steps × width` values, row t (from
 * 0) the state after env step t + 1; the `initial` block is the state after reset. Every body quantity is
 * computed from the row's own qpos / qvel (mj_forward, then mj_rnePostConstraint), so xpos matches qpos.
 */

/** A body of the model, as judges' prompts describe it. */
export interface BodyRow {
  index: number;
  name: string;
  /** The parent body's index (0: the world). */
  parent: number;
}

/** A joint of the model, with the conventions a judge must know to read qpos / qvel. */
export interface JointRow {
  index: number;
  name: string;
  type: "free" | "ball" | "slide" | "hinge";
  body: number;
  /** Offsets of this joint's first entry in qpos and qvel. */
  qposAdr: number;
  dofAdr: number;
  /** The joint's axis in its body's frame (hinge: rotation axis, right-handed; slide: direction of +q). */
  axis: [number, number, number];
  /** Limits [lo, hi] in rad (hinge) or m (slide); null when unlimited. */
  range: [number, number] | null;
}

/** What never changes over an episode: the model's tables and the task's conventions. */
export interface TrajectoryHeader {
  schemaVersion: 1;
  task: string;
  /** The model file the episode ran (its name in the shipped assets). */
  model: string;
  /** Seconds of simulated time per env step. */
  dt: number;
  nq: number;
  nv: number;
  nbody: number;
  obsDim: number;
  actionDim: number;
  bodies: BodyRow[];
  joints: JointRow[];
  /** The world direction the task calls forward, a unit vector (e.g. [1, 0, 0]); z is up in every shipped model. */
  forward: [number, number, number];
  /** Names of the reward terms recorded per step: the task's info keys, then `fitness` (the step's increment of F). */
  terms: string[];
}

/** Per step, columnar. `width` of each field: obs obsDim, action actionDim, qpos nq, qvel nv, xpos nbody·3, xquat nbody·4 (w, x, y, z), cvel nbody·6 (angular then linear, MuJoCo's com-based convention), cfrc_ext nbody·6. */
export interface TrajectoryColumns {
  /** The observation after the step: row t − 1 (or `initial.obs` at t = 0) is what the policy saw when it chose row t's action. */
  obs: Float64Array;
  /** The action as applied: clipped to the action bounds, the env's ctrl during the step. */
  action: Float64Array;
  /** One column per entry of `terms`, in that order: steps × terms.length. */
  terms: Float64Array;
  qpos: Float64Array;
  qvel: Float64Array;
  xpos: Float64Array;
  xquat: Float64Array;
  cvel: Float64Array;
  cfrcExt: Float64Array;
  /** 1 where the step ended the episode by the task's rule / by the time limit, else 0. */
  terminated: Uint8Array;
  truncated: Uint8Array;
}

export interface TrajectoryRecord {
  header: TrajectoryHeader;
  /** The state after reset: obs (the policy's first input), qpos, qvel, xpos, xquat (one row each). */
  initial: Pick<TrajectoryColumns, "obs" | "qpos" | "qvel" | "xpos" | "xquat">;
  /** Env steps recorded (the episode's length, at most the record's bound). */
  steps: number;
  columns: TrajectoryColumns;
}
