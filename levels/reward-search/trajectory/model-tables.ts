import type { MainModule, MjModel } from "mujoco-js";
import type { BodyRow, JointRow } from "./record.ts";

/**
 * The body and joint tables a judge's prompt carries (docs/spec/trajectory.md), read from a compiled model:
 * names from the model's name tables, parents, joint types, qpos / dof addresses, axes and limits.
 */

/** mjtObj values of mj_id2name. */
const OBJ = { body: 1, joint: 3 } as const;
/** mjtJoint, in MuJoCo's order. */
const JOINT_TYPES = ["free", "ball", "slide", "hinge"] as const;

export const bodyTable = (mj: MainModule, m: MjModel): BodyRow[] => {
  const parent = m.body_parentid as Int32Array;
  return Array.from({ length: m.nbody }, (_, index) => ({ index, name: mj.mj_id2name(m, OBJ.body, index) ?? "", parent: parent[index]! }));
};

export const jointTable = (mj: MainModule, m: MjModel): JointRow[] => {
  const type = m.jnt_type as Int32Array,
    body = m.jnt_bodyid as Int32Array,
    qposAdr = m.jnt_qposadr as Int32Array,
    dofAdr = m.jnt_dofadr as Int32Array,
    axis = m.jnt_axis as Float64Array,
    range = m.jnt_range as Float64Array,
    limited = m.jnt_limited as Uint8Array;
  return Array.from({ length: m.njnt }, (_, j) => ({
    index: j,
    name: mj.mj_id2name(m, OBJ.joint, j) ?? "",
    type: JOINT_TYPES[type[j]!]!,
    body: body[j]!,
    qposAdr: qposAdr[j]!,
    dofAdr: dofAdr[j]!,
    axis: [axis[3 * j]!, axis[3 * j + 1]!, axis[3 * j + 2]!],
    range: limited[j] ? [range[2 * j]!, range[2 * j + 1]!] : null,
  }));
};
