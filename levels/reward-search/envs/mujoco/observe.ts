import type { MjData } from "mujoco-js";

/**
 * Observation and reward pieces shared by the Gymnasium v5 MuJoCo tasks (gymnasium/envs/mujoco/*_v5.py,
 * summarised in envs/mujoco/assets/README.md): positions without the root's first coordinates, velocities, clipping.
 */

/** qpos[skip:] then qvel, each velocity clipped to ±velClip (Infinity: unclipped); returns the entries written. */
export const writeQposQvel = (d: MjData, skip: number, velClip: number, out: Float64Array, off: number): number => {
  const qpos = d.qpos as Float64Array,
    qvel = d.qvel as Float64Array;
  let k = off;
  for (let j = skip; j < qpos.length; j++) out[k++] = qpos[j]!;
  for (let j = 0; j < qvel.length; j++) {
    const v = qvel[j]!;
    out[k++] = v < -velClip ? -velClip : v > velClip ? velClip : v;
  }
  return k - off;
};
