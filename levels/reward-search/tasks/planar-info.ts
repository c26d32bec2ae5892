import type { StepOutcome } from "../envs/mujoco/mujoco-env.ts";

/** One step of a body that moves in the ground plane: where it is, what it gained, and its state. */
export interface PlanarStep {
  position: readonly [number, number];
  progress: readonly [number, number];
  healthy: boolean;
  contactForceSq: number;
}

/** The info keys the ground-plane tasks (ant, humanoid) share, written for env o.i; velocities are progress / dt. */
export const writePlanarInfo = (o: StepOutcome, s: PlanarStep): void => {
  const { info, i } = o;
  info.x_position![i] = s.position[0];
  info.y_position![i] = s.position[1];
  info.x_progress![i] = s.progress[0];
  info.y_progress![i] = s.progress[1];
  info.x_velocity![i] = s.progress[0] / o.dt;
  info.y_velocity![i] = s.progress[1] / o.dt;
  info.healthy![i] = s.healthy ? 1 : 0;
  info.contact_force_sq![i] = s.contactForceSq;
};
