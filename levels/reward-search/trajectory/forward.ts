import { InvariantError } from "../../../src/errors.ts";

/**
 * The world direction each MuJoCo task calls forward (docs/spec/trajectory.md), a unit vector, z up. For the
 * planar walkers and the pendulum it is the way the model faces (+x). half_cheetah_backward keeps its cheetah's
 * +x: its description asks for motion along −forward, so a judge reads "backward" against this vector.
 * ant_along_y's forward is +y: the ant is symmetric in the plane and its task measures progress along y.
 */
const FORWARD = {
  hopper: [1, 0, 0],
  hopper_front_flip: [1, 0, 0],
  walker2d: [1, 0, 0],
  half_cheetah: [1, 0, 0],
  half_cheetah_backward: [1, 0, 0],
  ant: [1, 0, 0],
  ant_along_y: [0, 1, 0],
  humanoid: [1, 0, 0],
  inverted_pendulum: [1, 0, 0],
} as const satisfies Record<string, readonly [number, number, number]>;

/** The forward direction of a MuJoCo task; a task missing from the table is a hexa bug, named. */
export const forwardOf = (taskId: string): [number, number, number] => {
  const f = (FORWARD as Record<string, readonly [number, number, number]>)[taskId];
  if (!f)
    throw new InvariantError(`trajectory: task ${taskId} has no forward direction (have ${Object.keys(FORWARD).join(", ")}); add it to trajectory/forward.ts`);
  return [...f];
};
