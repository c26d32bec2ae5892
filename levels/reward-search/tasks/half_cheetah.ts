import { defineTask } from "../task.ts";
import { FORWARD_PROGRESS_REWARD } from "./forward-progress.ts";
import { instanceSeeds, listNames } from "../envs/vec-env.ts";
import { makeMujocoEnv, prepareMujoco, type MujocoSpec } from "../envs/mujoco/mujoco-env.ts";
import { writeQposQvel } from "../envs/mujoco/observe.ts";

/**
 * Gymnasium HalfCheetah-v5 (gymnasium/envs/mujoco/half_cheetah_v5.py; envs/mujoco/assets/README.md): half_cheetah.xml,
 * frame_skip 5 (dt 0.05 s), observation qpos[1:] + qvel, reset noise qpos U(±0.1) and qvel 0.1·N(0, 1),
 * never terminates; 1000 steps.
 */
export const HALF_CHEETAH = { frameSkip: 5, resetNoise: 0.1, maxEpisodeSteps: 1000 } as const;

export const HALF_CHEETAH_OBS = [
  "torso_z",
  "torso_angle",
  "back_thigh_angle",
  "back_shin_angle",
  "back_foot_angle",
  "front_thigh_angle",
  "front_shin_angle",
  "front_foot_angle",
  "torso_vx",
  "torso_vz",
  "torso_angular_velocity",
  "back_thigh_speed",
  "back_shin_speed",
  "back_foot_speed",
  "front_thigh_speed",
  "front_shin_speed",
  "front_foot_speed",
] as const;
export const HALF_CHEETAH_ACTIONS = ["bthigh", "bshin", "bfoot", "fthigh", "fshin", "ffoot"] as const;
export const HALF_CHEETAH_INFO = ["x_position", "x_progress", "x_velocity"] as const;

/** The cheetah env; F per step is sign × the torso x gained (forward: +1, backward: −1). */
export const halfCheetahSpec = (sign: 1 | -1): MujocoSpec => ({
  model: "half_cheetah.xml",
  frameSkip: HALF_CHEETAH.frameSkip,
  low: HALF_CHEETAH_ACTIONS.map(() => -1),
  high: HALF_CHEETAH_ACTIONS.map(() => 1),
  resetNoise: HALF_CHEETAH.resetNoise,
  qvelNoise: "normal",
  contactForces: false,
  obsDim: HALF_CHEETAH_OBS.length,
  info: HALF_CHEETAH_INFO,
  maxEpisodeSteps: HALF_CHEETAH.maxEpisodeSteps,
  observe: (d, out, off) => void writeQposQvel(d, 1, Infinity, out, off),
  track: (d) => [(d.qpos as Float64Array)[0]!],
  outcome: (o) => {
    const x = (o.d.qpos as Float64Array)[0]!;
    o.info.x_position![o.i] = x;
    o.info.x_progress![o.i] = x - o.before[0]!;
    o.info.x_velocity![o.i] = (x - o.before[0]!) / o.dt;
    o.fitness[o.i] = sign * (x - o.before[0]!);
    return false;
  },
});

/** Every cheetah task's description but its goal line. */
export const halfCheetahDescription = (goal: string): string =>
  [
    "A planar cat-like robot (torso; back and front thigh, shin and foot; 6 hinge joints) on flat ground; its head points to +x. MuJoCo (Gymnasium HalfCheetah-v5 model), 0.05 s per step (5 physics steps of 0.01 s).",
    "Observation (17 floats, positions then velocities): torso_z = torso height [m] (0 at the start; the root's z offset), torso_angle = torso pitch [rad], " +
      "back_thigh_angle, back_shin_angle, back_foot_angle, front_thigh_angle, front_shin_angle, front_foot_angle = joint angles [rad], torso_vx, torso_vz = torso velocity [m/s], torso_angular_velocity [rad/s], " +
      "back_thigh_speed, back_shin_speed, back_foot_speed, front_thigh_speed, front_shin_speed, front_foot_speed = joint angular velocities [rad/s] (unclipped).",
    `Action (continuous, 6, each −1..1, clipped): ${listNames(HALF_CHEETAH_ACTIONS)} = torque commands of the back thigh, shin and foot, then the front ones (gears 120, 90, 60, 120, 60, 30); the reward code reads action.bthigh etc.`,
    "Info fields (after the step): x_position = torso x [m] (0 ± 0.1 at the start: reset noise), x_progress = torso x gained in this step [m], x_velocity = x_progress / 0.05 s [m/s].",
    "Termination: none (it may flip over and keep going). Time limit: 1000 steps (50 s, truncation). Start: every position perturbed by up to ±0.1 and every velocity by 0.1 × a standard normal.",
    `Goal: ${goal}`,
  ].join("\n");

const spec = halfCheetahSpec(1);

export default defineTask({
  id: "half_cheetah",
  title: "HalfCheetah: run forward as fast as possible (Gymnasium HalfCheetah-v5, MuJoCo)",
  description: halfCheetahDescription("move the torso as far forward (+x) as possible within the time limit."),
  observation: HALF_CHEETAH_OBS,
  actionNames: HALF_CHEETAH_ACTIONS,
  info: HALF_CHEETAH_INFO,
  fitness: {
    describe: "forward distance: torso x gained over the episode [m] (a 50 s episode; 100 m ≈ 2 m/s ≈ Gymnasium return 1,800)",
    range: [-200, 800],
    solved: 100,
  },
  sparseReward: FORWARD_PROGRESS_REWARD,
  humanReward: `function reward(obs, action, nextObs, info) {
  const forward = info.x_velocity;
  const ctrl = -0.1 * (action.bthigh ** 2 + action.bshin ** 2 + action.bfoot ** 2 + action.fthigh ** 2 + action.fshin ** 2 + action.ffoot ** 2);
  return { total: forward + ctrl, components: { forward, ctrl } };
}`,
  training: { steps: 1_000_000, ppo: { numEnvs: 1, numSteps: 2048, learningRate: 3e-4, minibatchSize: 64, updateEpochs: 10, entCoef: 0.0, gamma: 0.99 } },
  maxEpisodeSteps: HALF_CHEETAH.maxEpisodeSteps,
  generate: (seed) => ({ task: "half_cheetah", seed, ...instanceSeeds(seed), params: {} }),
  prepare: () => prepareMujoco(spec),
  makeEnv: (_instance, numEnvs, firstEnv) => makeMujocoEnv(spec, numEnvs, firstEnv),
});
