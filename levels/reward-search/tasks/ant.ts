import { defineTask } from "../task.ts";
import { FORWARD_PROGRESS_REWARD } from "./forward-progress.ts";
import { instanceSeeds, listNames } from "../envs/vec-env.ts";
import { makeMujocoEnv, prepareMujoco, type MujocoSpec } from "../envs/mujoco/mujoco-env.ts";
import { writeQposQvel } from "../envs/mujoco/observe.ts";
import { writePlanarInfo } from "./planar-info.ts";

/**
 * Gymnasium Ant-v5 (gymnasium/envs/mujoco/ant_v5.py; envs/mujoco/assets/README.md): ant.xml, frame_skip 5 (dt 0.05 s),
 * observation qpos[2:] + qvel + cfrc_ext of bodies 1..13 clipped to ±1 (mj_rnePostConstraint after
 * stepping), reset noise qpos U(±0.1) and qvel 0.1·N(0, 1), healthy while the state is finite and
 * 0.2 ≤ z ≤ 1.0; ends when unhealthy; 1000 steps. Velocities are the torso's xpos differences over dt.
 */
export const ANT = { frameSkip: 5, resetNoise: 0.1, minZ: 0.2, maxZ: 1.0, forceClip: 1, maxEpisodeSteps: 1000 } as const;

const LEGS = [1, 2, 3, 4] as const;
const CONTACT = Array.from({ length: 13 }, (_, b) => Array.from({ length: 6 }, (_, k) => `contact_${b + 1}_${k}`)).flat();
export const ANT_OBS = [
  "torso_z",
  "torso_qw",
  "torso_qx",
  "torso_qy",
  "torso_qz",
  ...LEGS.flatMap((l) => [`hip_${l}_angle`, `ankle_${l}_angle`]),
  "torso_vx",
  "torso_vy",
  "torso_vz",
  "torso_wx",
  "torso_wy",
  "torso_wz",
  ...LEGS.flatMap((l) => [`hip_${l}_speed`, `ankle_${l}_speed`]),
  ...CONTACT,
] as const;
export const ANT_ACTIONS = ["hip_4", "ankle_4", "hip_1", "ankle_1", "hip_2", "ankle_2", "hip_3", "ankle_3"] as const;
export const ANT_INFO = ["x_position", "y_position", "x_progress", "y_progress", "x_velocity", "y_velocity", "healthy", "contact_force_sq"] as const;

const clip = (v: number) => (v < -ANT.forceClip ? -ANT.forceClip : v > ANT.forceClip ? ANT.forceClip : v);

/** The ant env; `progress` picks F per step from (x gained, y gained). */
export const antSpec = (progress: (dx: number, dy: number) => number): MujocoSpec => ({
  model: "ant.xml",
  frameSkip: ANT.frameSkip,
  low: ANT_ACTIONS.map(() => -1),
  high: ANT_ACTIONS.map(() => 1),
  resetNoise: ANT.resetNoise,
  qvelNoise: "normal",
  contactForces: true,
  obsDim: ANT_OBS.length,
  info: ANT_INFO,
  maxEpisodeSteps: ANT.maxEpisodeSteps,
  observe: (d, out, off) => {
    const k = off + writeQposQvel(d, 2, Infinity, out, off);
    const f = d.cfrc_ext as Float64Array;
    for (let j = 6; j < f.length; j++) out[k + j - 6] = clip(f[j]!);
  },
  track: (d) => [(d.xpos as Float64Array)[3]!, (d.xpos as Float64Array)[4]!],
  outcome: (o) => {
    const xpos = o.d.xpos as Float64Array,
      qpos = o.d.qpos as Float64Array,
      qvel = o.d.qvel as Float64Array,
      f = o.d.cfrc_ext as Float64Array;
    const dx = xpos[3]! - o.before[0]!,
      dy = xpos[4]! - o.before[1]!;
    const healthy = qpos.every(Number.isFinite) && qvel.every(Number.isFinite) && qpos[2]! >= ANT.minZ && qpos[2]! <= ANT.maxZ;
    let sq = 0;
    for (let j = 0; j < f.length; j++) sq += clip(f[j]!) ** 2;
    writePlanarInfo(o, { position: [xpos[3]!, xpos[4]!], progress: [dx, dy], healthy, contactForceSq: sq });
    o.fitness[o.i] = progress(dx, dy);
    return !healthy;
  },
});

/** Every ant task's description but its goal line. */
export const antDescription = (goal: string): string =>
  [
    "A four-legged robot (a 0.25 m spherical torso, four legs of a hip and an ankle joint each) on flat ground, free to move in 3D. MuJoCo (Gymnasium Ant-v5 model), 0.05 s per step (5 physics steps of 0.01 s).",
    "Observation (105 floats): torso_z = torso height [m] (0.75 at the start), torso_qw, torso_qx, torso_qy, torso_qz = torso orientation quaternion, " +
      `${listNames(LEGS.flatMap((l) => [`hip_${l}_angle`, `ankle_${l}_angle`]))} = joint angles [rad], torso_vx, torso_vy, torso_vz = torso velocity [m/s], torso_wx, torso_wy, torso_wz = torso angular velocity [rad/s], ` +
      `${listNames(LEGS.flatMap((l) => [`hip_${l}_speed`, `ankle_${l}_speed`]))} = joint angular velocities [rad/s]; ` +
      `then contact_B_K = component K (0..2 torque, 3..5 force) of the external contact wrench on body B (1 torso, then each leg's three segments in the model's order, 2..13), clipped to −1..1: ${CONTACT.join(", ")}.`,
    `Action (continuous, 8, each −1..1, clipped): ${listNames(ANT_ACTIONS)} = torque commands of the hip and ankle motors (gear 150); the reward code reads action.hip_1 etc.`,
    "Info fields (after the step): x_position, y_position = torso position [m] (0 ± 0.1 each at the start: reset noise), x_progress, y_progress = torso x and y gained in this step [m], x_velocity, y_velocity = progress / 0.05 s [m/s], " +
      "healthy = 1 while the state is finite and 0.2 ≤ torso_z ≤ 1.0 m, else 0, contact_force_sq = sum of squares of every body's contact wrench components (the world's included), each clipped to −1..1.",
    "Termination: healthy becomes 0 (jumped too high or flipped/fell). Time limit: 1000 steps (50 s, truncation). Start: every position perturbed by up to ±0.1 and every velocity by 0.1 × a standard normal.",
    `Goal: ${goal}`,
  ].join("\n");

const spec = antSpec((dx) => dx);

export default defineTask({
  id: "ant",
  title: "Ant: walk forward (+x) as fast as possible without flipping (Gymnasium Ant-v5, MuJoCo)",
  description: antDescription("move the torso as far forward (+x) as possible within the time limit without flipping over."),
  observation: ANT_OBS,
  actionNames: ANT_ACTIONS,
  info: ANT_INFO,
  fitness: { describe: "forward distance: torso x gained over the episode [m] (a 50 s episode; 50 m ≈ 1 m/s)", range: [-100, 300], solved: 50 },
  sparseReward: FORWARD_PROGRESS_REWARD,
  humanReward: `function reward(obs, action, nextObs, info) {
  const forward = info.x_velocity;
  const healthy = info.healthy;
  const ctrl = -0.5 * (action.hip_1 ** 2 + action.ankle_1 ** 2 + action.hip_2 ** 2 + action.ankle_2 ** 2 + action.hip_3 ** 2 + action.ankle_3 ** 2 + action.hip_4 ** 2 + action.ankle_4 ** 2);
  const contact = -5e-4 * info.contact_force_sq;
  return { total: forward + healthy + ctrl + contact, components: { forward, healthy, ctrl, contact } };
}`,
  training: { steps: 1_000_000, ppo: { numEnvs: 1, numSteps: 2048, learningRate: 3e-4, minibatchSize: 64, updateEpochs: 10, entCoef: 0.0, gamma: 0.99 } },
  maxEpisodeSteps: ANT.maxEpisodeSteps,
  generate: (seed) => ({ task: "ant", seed, ...instanceSeeds(seed), params: {} }),
  prepare: () => prepareMujoco(spec),
  makeEnv: (_instance, numEnvs, firstEnv) => makeMujocoEnv(spec, numEnvs, firstEnv),
});
