/**
 * One judged episode of a MuJoCo task, step by step (docs/spec/reward-search.md, judging): what a code judge
 * measures and a renderer draws. Columnar: each per-step quantity is one flat Float64Array of `steps × width`
 * values, row t the state after env step t (row 0 of the `initial` block is the state after reset).
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
  /** Names of the reward terms recorded per step (the task's info keys and F). */
  terms: string[];
}

/** Per step, columnar. `width` of each field: obs obsDim, action actionDim, qpos nq, qvel nv, xpos nbody·3, xquat nbody·4 (w, x, y, z), cvel nbody·6 (angular then linear, MuJoCo's com-based convention), cfrc_ext nbody·6. */
export interface TrajectoryColumns {
  obs: Float64Array;
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
  /** The state after reset: qpos, qvel, xpos, xquat (one row each). */
  initial: Pick<TrajectoryColumns, "qpos" | "qvel" | "xpos" | "xquat">;
  /** Env steps recorded (the episode's length, at most the record's bound). */
  steps: number;
  columns: TrajectoryColumns;
}
