import { defineTask } from "../task.ts";
import { FORWARD_PROGRESS_REWARD } from "./forward-progress.ts";
import { instanceSeeds, listNames } from "../envs/vec-env.ts";
import { makeMujocoEnv, prepareMujoco, type MujocoSpec } from "../envs/mujoco/mujoco-env.ts";
import { writeQposQvel } from "../envs/mujoco/observe.ts";

/**
 * Gymnasium Walker2d-v5 (gymnasium/envs/mujoco/walker2d_v5.py; envs/mujoco/assets/README.md): walker2d_v5.xml,
 * frame_skip 4 (dt 0.008 s), observation qpos[1:] + qvel clipped to ±10, reset noise U(±5e-3), healthy while
 * 0.8 < z < 2.0 and −1 < angle < 1; ends when unhealthy; 1000 steps.
 */
const WALKER2D = { frameSkip: 4, resetNoise: 5e-3, velClip: 10, minZ: 0.8, maxZ: 2.0, maxAngle: 1.0, maxEpisodeSteps: 1000 } as const;

const OBS = [
  "torso_z",
  "torso_angle",
  "right_thigh_angle",
  "right_leg_angle",
  "right_foot_angle",
  "left_thigh_angle",
  "left_leg_angle",
  "left_foot_angle",
  "torso_vx",
  "torso_vz",
  "torso_angular_velocity",
  "right_thigh_speed",
  "right_leg_speed",
  "right_foot_speed",
  "left_thigh_speed",
  "left_leg_speed",
  "left_foot_speed",
] as const;
const ACTIONS = ["thigh_joint", "leg_joint", "foot_joint", "thigh_left_joint", "leg_left_joint", "foot_left_joint"] as const;
const INFO = ["x_position", "x_progress", "x_velocity", "healthy"] as const;

const walker2dSpec: MujocoSpec = {
  model: "walker2d_v5.xml",
  frameSkip: WALKER2D.frameSkip,
  low: ACTIONS.map(() => -1),
  high: ACTIONS.map(() => 1),
  resetNoise: WALKER2D.resetNoise,
  qvelNoise: "uniform",
  contactForces: false,
  obsDim: OBS.length,
  info: INFO,
  maxEpisodeSteps: WALKER2D.maxEpisodeSteps,
  observe: (d, out, off) => void writeQposQvel(d, 1, WALKER2D.velClip, out, off),
  track: (d) => [(d.qpos as Float64Array)[0]!],
  outcome: (o) => {
    const qpos = o.d.qpos as Float64Array;
    const z = qpos[1]!,
      angle = qpos[2]!;
    const healthy = z > WALKER2D.minZ && z < WALKER2D.maxZ && angle > -WALKER2D.maxAngle && angle < WALKER2D.maxAngle;
    o.info.x_position![o.i] = qpos[0]!;
    o.info.x_progress![o.i] = qpos[0]! - o.before[0]!;
    o.info.x_velocity![o.i] = (qpos[0]! - o.before[0]!) / o.dt;
    o.info.healthy![o.i] = healthy ? 1 : 0;
    o.fitness[o.i] = qpos[0]! - o.before[0]!;
    return !healthy;
  },
};

export default defineTask({
  id: "walker2d",
  title: "Walker2d: walk forward as fast as possible without falling (Gymnasium Walker2d-v5, MuJoCo)",
  description: [
    "A planar two-legged robot (torso; right and left thigh, leg and foot; 6 hinge joints) on flat ground; forward is +x. MuJoCo (Gymnasium Walker2d-v5 model), 0.008 s per step (4 physics steps of 0.002 s).",
    "Observation (17 floats, positions then velocities): torso_z = torso height [m] (1.25 at the start), torso_angle = torso pitch [rad] (0 upright, positive leans forward), " +
      "right_thigh_angle, right_leg_angle, right_foot_angle, left_thigh_angle, left_leg_angle, left_foot_angle = joint angles [rad], torso_vx, torso_vz = torso velocity [m/s], torso_angular_velocity [rad/s], " +
      "right_thigh_speed, right_leg_speed, right_foot_speed, left_thigh_speed, left_leg_speed, left_foot_speed = joint angular velocities [rad/s]; every velocity is clipped to −10..10.",
    `Action (continuous, 6, each −1..1, clipped): ${listNames(ACTIONS)} = torque commands of the right hip, knee and ankle, then the left ones (gear 100); the reward code reads action.thigh_joint etc.`,
    "Info fields (after the step): x_position = torso x [m] (0 at the start), x_progress = torso x gained in this step [m], x_velocity = x_progress / 0.008 s [m/s], healthy = 1 while 0.8 < torso_z < 2.0 m and −1 < torso_angle < 1 rad, else 0.",
    "Termination: healthy becomes 0. Time limit: 1000 steps (8 s, truncation). Start: standing, every position and velocity perturbed by up to ±0.005.",
    "Goal: move the torso as far forward (+x) as possible within the time limit without falling.",
  ].join("\n"),
  observation: OBS,
  actionNames: ACTIONS,
  info: INFO,
  fitness: { describe: "forward distance: torso x gained over the episode [m] (an 8 s episode; 15 m ≈ Gymnasium return 2,900)", range: [-20, 50], solved: 15 },
  sparseReward: FORWARD_PROGRESS_REWARD,
  humanReward: `function reward(obs, action, nextObs, info) {
  const forward = info.x_velocity;
  const healthy = info.healthy;
  const ctrl = -1e-3 * (action.thigh_joint ** 2 + action.leg_joint ** 2 + action.foot_joint ** 2 + action.thigh_left_joint ** 2 + action.leg_left_joint ** 2 + action.foot_left_joint ** 2);
  return { total: forward + healthy + ctrl, components: { forward, healthy, ctrl } };
}`,
  training: { steps: 1_000_000, ppo: { numEnvs: 1, numSteps: 2048, learningRate: 3e-4, minibatchSize: 64, updateEpochs: 10, entCoef: 0.0, gamma: 0.99 } },
  maxEpisodeSteps: WALKER2D.maxEpisodeSteps,
  generate: (seed) => ({ task: "walker2d", seed, ...instanceSeeds(seed), params: {} }),
  prepare: () => prepareMujoco(walker2dSpec),
  makeEnv: (_instance, numEnvs, firstEnv) => makeMujocoEnv(walker2dSpec, numEnvs, firstEnv),
});
