import type { MjData } from "mujoco-js";
import { ConfigError } from "../../../src/errors.ts";
import type { MujocoVecEnv } from "../envs/mujoco/mujoco-env.ts";
import type { TaskInstance } from "../task.ts";
import { loadTask } from "../tasks/index.ts";
import type { TrajectoryRecord } from "../trajectory/record.ts";
import { type FrameScene, sceneOf } from "./frame-scene.ts";

/**
 * A MuJoCo task's episode with only the body poses filled (xpos, xquat per step), and the scene of its model:
 * what the frame renderer reads, for its tests and benchmark. Other columns are empty.
 */
export interface SteppedEpisode {
  scene: FrameScene;
  record: TrajectoryRecord;
}

const poses = (d: MjData, nbody: number) => ({
  xpos: Float64Array.from((d.xpos as Float64Array).subarray(0, nbody * 3)),
  xquat: Float64Array.from((d.xquat as Float64Array).subarray(0, nbody * 4)),
});

export interface SteppedRequest {
  task: string;
  instance?: TaskInstance;
  /** At most this many env steps (fewer where the episode ends first). */
  steps: number;
  /** The action for the observation at step t (0-based). */
  act: (obs: Float64Array, t: number) => ArrayLike<number>;
  seed?: number;
}

/** Step a MuJoCo task from reset(seed), keeping the body poses after reset and after each step. */
export const steppedEpisode = async (r: SteppedRequest): Promise<SteppedEpisode> => {
  const task = await loadTask(r.task);
  await task.prepare?.();
  const env = task.makeEnv(r.instance ?? task.generate(0), 1) as Partial<MujocoVecEnv>;
  if (typeof env.model !== "function" || typeof env.data !== "function") {
    env.close?.();
    throw new ConfigError(`task ${r.task} is not a MuJoCo task; frames are drawn for the MuJoCo tasks only`);
  }
  const mj = env as MujocoVecEnv;
  try {
    let obs = mj.reset(r.seed ?? 0);
    const m = mj.model();
    const model = modelFileOf(r.task);
    const nbody = m.nbody;
    const initial = poses(mj.data(0), nbody);
    const xpos: Float64Array[] = [],
      xquat: Float64Array[] = [];
    for (let t = 0; t < r.steps; t++) {
      const b = mj.step(Float64Array.from(r.act(obs, t)));
      // After an episode ends the env has already reset: its MjData no longer shows the last state.
      if (b.terminated[0] || b.truncated[0]) break;
      const p = poses(mj.data(0), nbody);
      xpos.push(p.xpos);
      xquat.push(p.xquat);
      obs = b.obs;
    }
    return { scene: sceneOf(m, model), record: recordOf(r.task, model, mj.stepSeconds(), nbody, initial, xpos, xquat) };
  } finally {
    mj.close();
  }
};

const MODEL_FILES: Record<string, string> = {
  hopper: "hopper.xml",
  walker2d: "walker2d_v5.xml",
  half_cheetah: "half_cheetah.xml",
  ant: "ant.xml",
  inverted_pendulum: "inverted_pendulum.xml",
};
const modelFileOf = (taskId: string): string => {
  const file = Object.entries(MODEL_FILES).find(([id]) => taskId === id || taskId.startsWith(`${id}_`))?.[1];
  if (!file) throw new ConfigError(`task ${taskId}: no model file known; use one of ${Object.keys(MODEL_FILES).join(", ")}`);
  return file;
};

const concat = (rows: Float64Array[], width: number): Float64Array => {
  const out = new Float64Array(rows.length * width);
  rows.forEach((r, i) => out.set(r, i * width));
  return out;
};

const recordOf = (
  task: string,
  model: string,
  dt: number,
  nbody: number,
  initial: { xpos: Float64Array; xquat: Float64Array },
  xpos: Float64Array[],
  xquat: Float64Array[],
): TrajectoryRecord => {
  const empty = new Float64Array(0);
  return {
    header: { schemaVersion: 1, task, model, dt, nq: 0, nv: 0, nbody, obsDim: 0, actionDim: 0, bodies: [], joints: [], forward: [1, 0, 0], terms: [] },
    initial: { qpos: empty, qvel: empty, xpos: initial.xpos, xquat: initial.xquat },
    steps: xpos.length,
    columns: {
      obs: empty,
      action: empty,
      terms: empty,
      qpos: empty,
      qvel: empty,
      xpos: concat(xpos, nbody * 3),
      xquat: concat(xquat, nbody * 4),
      cvel: empty,
      cfrcExt: empty,
      terminated: new Uint8Array(0),
      truncated: new Uint8Array(0),
    },
  };
};
