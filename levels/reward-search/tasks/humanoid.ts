import type { MjData } from "mujoco-js";
import { defineTask } from "../task.ts";
import { FORWARD_PROGRESS_REWARD } from "./forward-progress.ts";
import { instanceSeeds, listNames } from "../envs/vec-env.ts";
import { assetPath, makeMujocoEnv, prepareMujoco, type MujocoSpec, type StepOutcome } from "../envs/mujoco/mujoco-env.ts";
import { writePlanarInfo } from "./planar-info.ts";
import { writeQposQvel } from "../envs/mujoco/observe.ts";
import { loadedModel } from "../envs/mujoco/runtime.ts";

/**
 * Gymnasium Humanoid-v5 (gymnasium/envs/mujoco/humanoid_v5.py; envs/mujoco/assets/README.md): humanoid.xml, frame_skip 5
 * (dt 0.015 s), observation qpos[2:] + qvel + cinert[1:] + cvel[1:] + qfrc_actuator[6:] + cfrc_ext[1:] (348;
 * mj_rnePostConstraint after stepping), reset noise qpos and qvel U(±0.01), healthy while 1.0 < z < 2.0 (strict);
 * ends when unhealthy; 1000 steps. Velocities are the centre of mass's (body masses × xipos) differences over dt.
 */
const HUMANOID = {
  frameSkip: 5,
  resetNoise: 1e-2,
  minZ: 1.0,
  maxZ: 2.0,
  healthyReward: 5,
  forwardWeight: 1.25,
  ctrlCost: 0.1,
  contactCost: 5e-7,
  contactCostMax: 10,
  maxEpisodeSteps: 1000,
} as const;

const MODEL = "humanoid.xml";

/** The model's bodies after the world (body 1..13), its hinge joints (qpos 7.., qvel 6..) and its actuators, in the model's order. */
export const HUMANOID_BODIES = [
  "torso",
  "lwaist",
  "pelvis",
  "right_thigh",
  "right_shin",
  "right_foot",
  "left_thigh",
  "left_shin",
  "left_foot",
  "right_upper_arm",
  "right_lower_arm",
  "left_upper_arm",
  "left_lower_arm",
] as const;
export const HUMANOID_JOINTS = [
  "abdomen_z",
  "abdomen_y",
  "abdomen_x",
  "right_hip_x",
  "right_hip_z",
  "right_hip_y",
  "right_knee",
  "left_hip_x",
  "left_hip_z",
  "left_hip_y",
  "left_knee",
  "right_shoulder1",
  "right_shoulder2",
  "right_elbow",
  "left_shoulder1",
  "left_shoulder2",
  "left_elbow",
] as const;
export const HUMANOID_ACTIONS = [
  "abdomen_y",
  "abdomen_z",
  "abdomen_x",
  "right_hip_x",
  "right_hip_z",
  "right_hip_y",
  "right_knee",
  "left_hip_x",
  "left_hip_z",
  "left_hip_y",
  "left_knee",
  "right_shoulder1",
  "right_shoulder2",
  "right_elbow",
  "left_shoulder1",
  "left_shoulder2",
  "left_elbow",
] as const;

const perBody = (prefix: string, n: number) => HUMANOID_BODIES.flatMap((b) => Array.from({ length: n }, (_, k) => `${prefix}_${b}_${k}`));
const HUMANOID_OBS = [
  "torso_z",
  "torso_qw",
  "torso_qx",
  "torso_qy",
  "torso_qz",
  ...HUMANOID_JOINTS.map((j) => `${j}_angle`),
  "torso_vx",
  "torso_vy",
  "torso_vz",
  "torso_wx",
  "torso_wy",
  "torso_wz",
  ...HUMANOID_JOINTS.map((j) => `${j}_speed`),
  ...perBody("cinert", 10),
  ...perBody("cvel", 6),
  ...HUMANOID_JOINTS.map((j) => `${j}_actuator_force`),
  ...perBody("contact", 6),
] as const;

/** Gymnasium's info keys (x_position, y_position, x_velocity, y_velocity; tendon_length and tendon_velocity split per tendon), hexa's progress, health and contact sum. */
const HUMANOID_INFO = [
  "x_position",
  "y_position",
  "x_progress",
  "y_progress",
  "x_velocity",
  "y_velocity",
  "healthy",
  "contact_force_sq",
  "tendon_length_left_hipknee",
  "tendon_length_right_hipknee",
  "tendon_velocity_left_hipknee",
  "tendon_velocity_right_hipknee",
] as const;

/** Gymnasium's is_healthy: min_z < qpos[2] < max_z, both bounds excluded. */
export const humanoidHealthy = (z: number): boolean => HUMANOID.minZ < z && z < HUMANOID.maxZ;

/** Body masses of this thread's loaded model (copied: a heap growth empties a live view). */
let masses: Float64Array | null = null;
const bodyMasses = (): Float64Array => (masses ??= Float64Array.from(loadedModel(assetPath(MODEL), "humanoid task").body_mass as Float64Array));

/** Gymnasium's mass_center: Σ body_mass·xipos / Σ body_mass, its x and y (the world body's mass is 0). */
const massCentre = (d: MjData): [number, number] => {
  const m = bodyMasses(),
    xipos = d.xipos as Float64Array;
  let total = 0,
    x = 0,
    y = 0;
  for (let b = 0; b < m.length; b++) {
    total += m[b]!;
    x += m[b]! * xipos[3 * b]!;
    y += m[b]! * xipos[3 * b + 1]!;
  }
  return [x / total, y / total];
};

/** Entries from `from` of a live view, appended at out[k..]; returns the next k. */
const append = (view: Float64Array, from: number, out: Float64Array, k: number): number => {
  for (let j = from; j < view.length; j++) out[k++] = view[j]!;
  return k;
};

/** Gymnasium's _get_obs: qpos[2:], qvel, cinert[1:], cvel[1:], qfrc_actuator[6:], cfrc_ext[1:]. */
const observeHumanoid = (d: MjData, out: Float64Array, off: number): void => {
  let k = off + writeQposQvel(d, 2, Infinity, out, off);
  k = append(d.cinert as Float64Array, 10, out, k);
  k = append(d.cvel as Float64Array, 6, out, k);
  k = append(d.qfrc_actuator as Float64Array, 6, out, k);
  append(d.cfrc_ext as Float64Array, 6, out, k);
};

const sumSquares = (v: Float64Array): number => {
  let s = 0;
  for (let j = 0; j < v.length; j++) s += v[j]! ** 2;
  return s;
};

/** The step's info and F (centre-of-mass x gained); ends when unhealthy. */
const humanoidOutcome = (o: StepOutcome): boolean => {
  const d = o.d,
    qpos = d.qpos as Float64Array,
    tLen = d.ten_length as Float64Array,
    tVel = d.ten_velocity as Float64Array;
  const [x, y] = massCentre(d);
  const dx = x - o.before[0]!,
    dy = y - o.before[1]!;
  const healthy = humanoidHealthy(qpos[2]!);
  writePlanarInfo(o, { position: [qpos[0]!, qpos[1]!], progress: [dx, dy], healthy, contactForceSq: sumSquares(d.cfrc_ext as Float64Array) });
  const { info, i } = o;
  info.tendon_length_left_hipknee![i] = tLen[0]!;
  info.tendon_length_right_hipknee![i] = tLen[1]!;
  info.tendon_velocity_left_hipknee![i] = tVel[0]!;
  info.tendon_velocity_right_hipknee![i] = tVel[1]!;
  o.fitness[i] = dx;
  return !healthy;
};

const humanoidSpec: MujocoSpec = {
  model: MODEL,
  frameSkip: HUMANOID.frameSkip,
  low: HUMANOID_ACTIONS.map(() => -0.4),
  high: HUMANOID_ACTIONS.map(() => 0.4),
  resetNoise: HUMANOID.resetNoise,
  qvelNoise: "uniform",
  contactForces: true,
  obsDim: HUMANOID_OBS.length,
  info: HUMANOID_INFO,
  maxEpisodeSteps: HUMANOID.maxEpisodeSteps,
  observe: observeHumanoid,
  track: massCentre,
  outcome: humanoidOutcome,
};

const DESCRIPTION = [
  "A 3D humanoid (torso with head, abdomen in two parts, pelvis, two legs of thigh, shin and foot, two arms of upper and lower arm; 17 hinge joints, two tendons coupling each hip's y joint to its knee) on flat ground, free to move in 3D; forward is +x. MuJoCo (Gymnasium Humanoid-v5 model), 0.015 s per step (5 physics steps of 0.003 s).",
  "Observation (348 floats): torso_z = torso height [m] (1.4 at the start), torso_qw, torso_qx, torso_qy, torso_qz = torso orientation quaternion, " +
    `${listNames(HUMANOID_JOINTS.map((j) => `${j}_angle`))} = joint angles [rad], torso_vx, torso_vy, torso_vz = torso velocity [m/s], torso_wx, torso_wy, torso_wz = torso angular velocity [rad/s], ` +
    `${listNames(HUMANOID_JOINTS.map((j) => `${j}_speed`))} = joint angular velocities [rad/s]; ` +
    `then, for each body B of ${listNames(HUMANOID_BODIES)}: cinert_B_K = component K of its inertia in a frame at the whole model's centre of mass (K 0..5 the inertia matrix xx, yy, zz, xy, xz, yz [kg m²], 6..8 mass × offset [kg m], 9 mass [kg]): ${perBody("cinert", 10).join(", ")}; ` +
    `then cvel_B_K = component K of body B's velocity in that frame (0..2 angular [rad/s], 3..5 linear [m/s]): ${perBody("cvel", 6).join(", ")}; ` +
    `then ${listNames(HUMANOID_JOINTS.map((j) => `${j}_actuator_force`))} = the force each motor applies at its joint [N m]; ` +
    `then contact_B_K = component K (0..2 torque, 3..5 force) of the external contact wrench on body B, unclipped (thousands while a foot strikes): ${perBody("contact", 6).join(", ")}.`,
  `Action (continuous, 17, each −0.4..0.4, clipped): ${listNames(HUMANOID_ACTIONS)} = torque commands of the motors (gear 100; hips' y joints 300, knees 200, arms 25); the reward code reads action.abdomen_y etc.`,
  "Info fields (after the step): x_position, y_position = torso position [m] (0 ± 0.01 each at the start: reset noise), x_progress, y_progress = centre of mass x and y gained in this step [m] (mass-weighted mean of the bodies' centres), x_velocity, y_velocity = progress / 0.015 s [m/s], " +
    "healthy = 1 while 1.0 < torso_z < 2.0 m, else 0, contact_force_sq = sum of squares of every body's contact wrench components (the world's included), " +
    "tendon_length_left_hipknee, tendon_length_right_hipknee = each leg's tendon length (knee angle − hip y angle) [rad], tendon_velocity_left_hipknee, tendon_velocity_right_hipknee = their rates [rad/s].",
  "Termination: healthy becomes 0 (fell, or the torso left the ground too high). Time limit: 1000 steps (15 s, truncation). Start: the standing pose with every position and velocity perturbed by up to ±0.01.",
  "Goal: move the centre of mass as far forward (+x) as possible within the time limit without falling.",
].join("\n");

export default defineTask({
  id: "humanoid",
  title: "Humanoid: walk forward (+x) as fast as possible without falling (Gymnasium Humanoid-v5, MuJoCo)",
  description: DESCRIPTION,
  observation: HUMANOID_OBS,
  actionNames: HUMANOID_ACTIONS,
  info: HUMANOID_INFO,
  fitness: {
    describe: "forward distance: centre of mass x gained over the episode [m] (a 15 s episode; 15 m ≈ 1 m/s ≈ Gymnasium return 6,250 before costs)",
    range: [-100, 200],
    solved: 15,
  },
  sparseReward: FORWARD_PROGRESS_REWARD,
  humanReward: `function reward(obs, action, nextObs, info) {
  const forward = 1.25 * info.x_velocity;
  const healthy = 5 * info.healthy;
  const a = action;
  const ctrl = -0.1 * (a.abdomen_y ** 2 + a.abdomen_z ** 2 + a.abdomen_x ** 2 + a.right_hip_x ** 2 + a.right_hip_z ** 2 + a.right_hip_y ** 2 + a.right_knee ** 2 +
    a.left_hip_x ** 2 + a.left_hip_z ** 2 + a.left_hip_y ** 2 + a.left_knee ** 2 + a.right_shoulder1 ** 2 + a.right_shoulder2 ** 2 + a.right_elbow ** 2 +
    a.left_shoulder1 ** 2 + a.left_shoulder2 ** 2 + a.left_elbow ** 2);
  const contact = -Math.min(5e-7 * info.contact_force_sq, 10);
  return { total: forward + healthy + ctrl + contact, components: { forward, healthy, ctrl, contact } };
}`,
  training: { steps: 1_000_000, ppo: { numEnvs: 1, numSteps: 2048, learningRate: 3e-4, minibatchSize: 64, updateEpochs: 10, entCoef: 0.0, gamma: 0.99 } },
  maxEpisodeSteps: HUMANOID.maxEpisodeSteps,
  generate: (seed) => ({ task: "humanoid", seed, ...instanceSeeds(seed), params: {} }),
  prepare: () => prepareMujoco(humanoidSpec),
  makeEnv: (_instance, numEnvs, firstEnv) => makeMujocoEnv(humanoidSpec, numEnvs, firstEnv),
});
