import type { Term } from "./terms.ts";

/**
 * The heuristic designer's terms for the MuJoCo tasks (docs/spec/reward-search.md §9): progress along the
 * goal's direction, staying alive (healthy), posture and action cost, as a practitioner would start.
 */
const t = (name: string, expr: string, weight: number, range: readonly [number, number], base = true): Term => ({ name, expr, weight, range, base });

const effort = (names: readonly string[], weight: number): Term =>
  t("effort", `-(${names.map((n) => `action.${n} ** 2`).join(" + ")})`, weight, [0, weight * 10]);

const HOPPER = ["thigh_joint", "leg_joint", "foot_joint"];
const WALKER = ["thigh_joint", "leg_joint", "foot_joint", "thigh_left_joint", "leg_left_joint", "foot_left_joint"];
const CHEETAH = ["bthigh", "bshin", "bfoot", "fthigh", "fshin", "ffoot"];
const ANT = ["hip_1", "ankle_1", "hip_2", "ankle_2", "hip_3", "ankle_3", "hip_4", "ankle_4"];

export const MUJOCO_TERMS: Record<string, readonly Term[]> = {
  hopper: [
    t("forward", "info.x_velocity", 1, [0.3, 3]),
    t("alive", "info.healthy", 1, [0, 2]),
    effort(HOPPER, 0.001),
    t("upright", "-(nextObs.torso_angle ** 2)", 1, [0, 5], false),
  ],
  walker2d: [
    t("forward", "info.x_velocity", 1, [0.3, 3]),
    t("alive", "info.healthy", 1, [0, 2]),
    effort(WALKER, 0.001),
    t("upright", "-(nextObs.torso_angle ** 2)", 1, [0, 5], false),
  ],
  half_cheetah: [t("forward", "info.x_velocity", 1, [0.3, 3]), effort(CHEETAH, 0.1), t("level", "-(nextObs.torso_angle ** 2)", 0.1, [0, 1], false)],
  half_cheetah_backward: [t("backward", "-info.x_velocity", 1, [0.3, 3]), effort(CHEETAH, 0.1), t("level", "-(nextObs.torso_angle ** 2)", 0.1, [0, 1], false)],
  ant: [
    t("forward", "info.x_velocity", 1, [0.3, 3]),
    t("alive", "info.healthy", 1, [0, 2]),
    effort(ANT, 0.5),
    t("contact", "-info.contact_force_sq", 5e-4, [0, 5e-3], false),
  ],
  ant_along_y: [
    t("along_y", "info.y_velocity", 1, [0.3, 3]),
    t("alive", "info.healthy", 1, [0, 2]),
    effort(ANT, 0.5),
    t("drift", "-(info.x_velocity ** 2)", 0.1, [0, 1], false),
  ],
  inverted_pendulum: [
    t("alive", "info.balanced", 1, [0.5, 2]),
    t("angle", "-(nextObs.pole_angle ** 2)", 1, [0, 10]),
    t("centre", "-(nextObs.cart_position ** 2)", 0.1, [0, 1]),
    effort(["force"], 0.001),
  ],
  hopper_front_flip: [
    t("rotation", "info.forward_rotation", 10, [1, 50]),
    t("spin", "nextObs.torso_angular_velocity", 0.1, [0, 1]),
    t("height", "nextObs.torso_z", 1, [0, 5]),
    effort(HOPPER, 0.001),
  ],
};
