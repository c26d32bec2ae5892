import type { MjData, MjModel } from "mujoco-js";
import { ConfigError, InvariantError } from "../../../src/errors.ts";
import type { MujocoVecEnv } from "../envs/mujoco/mujoco-env.ts";
import { mujocoRuntime } from "../envs/mujoco/runtime.ts";
import type { RewardTask, TaskInstance } from "../task.ts";
import { forwardOf } from "./forward.ts";
import { COLUMN_FIELDS, columnWidths, MAX_TRAJECTORY_BYTES, numberBytes } from "./layout.ts";
import { bodyTable, jointTable } from "./model-tables.ts";
import type { TrajectoryColumns, TrajectoryHeader, TrajectoryRecord } from "./record.ts";

/**
 * Plays one episode of a MuJoCo task and records it step by step (docs/spec/trajectory.md). The env steps
 * exactly as an evaluation does; after each step the recorder completes the state's derived quantities
 * (mj_forward, mj_rnePostConstraint) from its qpos / qvel and copies them. mj_step computes the body quantities
 * before it integrates, so without this xpos would trail qpos by one physics step. The next step is unchanged:
 * it recomputes all of them, and mj_forward leaves the solver's warm start (qacc_warmstart, which only
 * mj_step's integrator saves) as it was.
 */

export interface EpisodeRequest {
  /** A MuJoCo task, prepared in this thread (tasks/index.ts loadTask). */
  task: RewardTask;
  instance: TaskInstance;
  /** The policy's action for one observation (greedy, as an evaluation plays it). */
  act: (obs: Float64Array) => Float64Array | Int32Array;
  seed: number;
  /** Steps recorded at most: the task's time limit unless smaller. */
  maxSteps?: number;
}

/** The name F's increments are recorded under, after the task's info keys. */
const FITNESS_TERM = "fitness";

const mujocoEnvOf = (task: RewardTask, instance: TaskInstance): MujocoVecEnv => {
  const env = task.makeEnv(instance, 1) as Partial<MujocoVecEnv>;
  if (typeof env.watchSteps !== "function" || typeof env.data !== "function") {
    env.close?.();
    throw new ConfigError(`trajectory: task ${task.id} is not a MuJoCo task; trajectories are recorded for the MuJoCo tasks only`);
  }
  return env as MujocoVecEnv;
};

const headerOf = (task: RewardTask, env: MujocoVecEnv, m: MjModel): TrajectoryHeader => {
  if (task.info.includes(FITNESS_TERM)) throw new InvariantError(`trajectory: task ${task.id} has an info key named ${FITNESS_TERM}; rename it`);
  const mj = mujocoRuntime(`trajectory of ${task.id}`);
  return {
    schemaVersion: 1,
    task: task.id,
    model: env.modelFile,
    dt: env.stepSeconds(),
    nq: m.nq,
    nv: m.nv,
    nbody: m.nbody,
    obsDim: env.obsDim,
    actionDim: m.nu,
    bodies: bodyTable(mj, m),
    joints: jointTable(mj, m),
    forward: forwardOf(task.id),
    terms: [...task.info, FITNESS_TERM],
  };
};

/** Columns for `rows` steps (cut to the episode's length at the end). */
const allocate = (h: TrajectoryHeader, rows: number): TrajectoryColumns => {
  const w = columnWidths(h);
  const f64 = (k: keyof typeof w) => new Float64Array(rows * w[k]);
  return {
    obs: f64("obs"),
    action: f64("action"),
    terms: f64("terms"),
    qpos: f64("qpos"),
    qvel: f64("qvel"),
    xpos: f64("xpos"),
    xquat: f64("xquat"),
    cvel: f64("cvel"),
    cfrcExt: f64("cfrcExt"),
    terminated: new Uint8Array(rows),
    truncated: new Uint8Array(rows),
  };
};

const cut = (c: TrajectoryColumns, h: TrajectoryHeader, rows: number): TrajectoryColumns => {
  const w = columnWidths(h);
  return Object.fromEntries(COLUMN_FIELDS.map((f) => [f, c[f].slice(0, rows * w[f])])) as unknown as TrajectoryColumns;
};

/** The body state of d (views fetched now: a wasm heap growth empties views fetched before it). */
const bodyState = (d: MjData) => ({
  qpos: d.qpos as Float64Array,
  qvel: d.qvel as Float64Array,
  xpos: d.xpos as Float64Array,
  xquat: d.xquat as Float64Array,
  cvel: d.cvel as Float64Array,
  cfrcExt: d.cfrc_ext as Float64Array,
  ctrl: d.ctrl as Float64Array,
});

/** Fills row `row()` of the columns after each step: the completed state and the applied action. */
const stepWatcher = (c: TrajectoryColumns, row: () => number, where: string) => (_i: number, d: MjData, m: MjModel) => {
  const mj = mujocoRuntime(where);
  mj.mj_forward(m, d);
  mj.mj_rnePostConstraint(m, d);
  const s = bodyState(d);
  const t = row();
  for (const f of ["qpos", "qvel", "xpos", "xquat", "cvel", "cfrcExt"] as const) c[f].set(s[f], t * s[f].length);
  c.action.set(s.ctrl, t * s.ctrl.length);
};

const recordSteps = (
  r: EpisodeRequest,
  env: MujocoVecEnv,
  h: TrajectoryHeader,
  firstObs: Float64Array,
  rows: number,
): TrajectoryRecord["columns"] & { steps: number } => {
  const c = allocate(h, rows);
  let t = 0;
  env.watchSteps(stepWatcher(c, () => t, `trajectory of ${h.task}`));
  let obs = firstObs;
  while (t < rows) {
    const b = env.step(r.act(obs));
    c.obs.set(b.nextObs, t * h.obsDim);
    h.terms.forEach((name, k) => {
      c.terms[t * h.terms.length + k] = name === FITNESS_TERM ? b.fitness[0]! : b.info[name]![0]!;
    });
    c.terminated[t] = b.terminated[0]!;
    c.truncated[t] = b.truncated[0]!;
    t++;
    if (b.terminated[0] || b.truncated[0]) break;
    obs = b.obs;
  }
  return { ...cut(c, h, t), steps: t };
};

const stepBound = (r: EpisodeRequest): number => {
  const limit = r.task.maxEpisodeSteps;
  const rows = r.maxSteps ?? limit;
  if (!Number.isInteger(rows) || rows < 1 || rows > limit)
    throw new ConfigError(`trajectory of ${r.task.id}: maxSteps must be an integer in [1, ${limit}] (the task's time limit) (got ${rows})`);
  return rows;
};

/** One episode from reset(seed) to its end (terminated, truncated) or `maxSteps`. */
export const recordEpisode = (r: EpisodeRequest): TrajectoryRecord => {
  const rows = stepBound(r);
  const env = mujocoEnvOf(r.task, r.instance);
  try {
    const firstObs = env.reset(r.seed);
    const h = headerOf(r.task, env, env.model());
    const bytes = numberBytes(h, rows);
    if (bytes > MAX_TRAJECTORY_BYTES)
      throw new ConfigError(
        `trajectory of ${r.task.id}: steps: ${rows} steps take ${bytes} bytes, over the ${MAX_TRAJECTORY_BYTES}-byte bound of a trajectory; record fewer steps (maxSteps)`,
      );
    const s = bodyState(env.data(0));
    const initial = { obs: firstObs.slice(), qpos: s.qpos.slice(), qvel: s.qvel.slice(), xpos: s.xpos.slice(), xquat: s.xquat.slice() };
    const { steps, ...columns } = recordSteps(r, env, h, firstObs, rows);
    return { header: h, initial, steps, columns };
  } finally {
    env.close();
  }
};
