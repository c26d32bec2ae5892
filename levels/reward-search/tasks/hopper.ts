import { defineTask } from "../task.ts";
import { FORWARD_PROGRESS_REWARD } from "./forward-progress.ts";
import { instanceSeeds, listNames } from "../envs/vec-env.ts";
import { makeMujocoEnv, prepareMujoco, type MujocoSpec, type StepOutcome } from "../envs/mujoco/mujoco-env.ts";
import { writeQposQvel } from "../envs/mujoco/observe.ts";

/**
 * Gymnasium Hopper-v5 (gymnasium/envs/mujoco/hopper_v5.py; envs/mujoco/assets/README.md): hopper.xml, frame_skip 4
 * (dt 0.008 s), observation qpos[1:] + qvel clipped to ±10, reset noise U(±5e-3), healthy while
 * z > 0.7, |angle| < 0.2 and every entry of qpos[2:], qvel inside (−100, 100); ends when unhealthy; 1000 steps.
 */
export const HOPPER = { frameSkip: 4, resetNoise: 5e-3, velClip: 10, minZ: 0.7, maxAngle: 0.2, maxState: 100, ctrlCost: 1e-3, maxEpisodeSteps: 1000 } as const;

export const HOPPER_OBS = [
  "torso_z",
  "torso_angle",
  "thigh_angle",
  "leg_angle",
  "foot_angle",
  "torso_vx",
  "torso_vz",
  "torso_angular_velocity",
  "thigh_speed",
  "leg_speed",
  "foot_speed",
] as const;
export const HOPPER_ACTIONS = ["thigh_joint", "leg_joint", "foot_joint"] as const;
const INFO = ["x_position", "x_progress", "x_velocity", "healthy"] as const;

/** Gymnasium's is_healthy on the post-step state. */
const hopperHealthy = (qpos: Float64Array, qvel: Float64Array): boolean => {
  const inside = (v: number) => v > -HOPPER.maxState && v < HOPPER.maxState;
  for (let j = 2; j < qpos.length; j++) if (!inside(qpos[j]!)) return false;
  for (let j = 0; j < qvel.length; j++) if (!inside(qvel[j]!)) return false;
  return qpos[1]! > HOPPER.minZ && Math.abs(qpos[2]!) < HOPPER.maxAngle;
};

/** The hopper env; `rule` writes F and says whether the episode ends (given the step and its health). */
export const hopperSpec = (rule: (o: StepOutcome, healthy: boolean) => boolean, info: readonly string[] = INFO): MujocoSpec => ({
  model: "hopper.xml",
  frameSkip: HOPPER.frameSkip,
  low: [-1, -1, -1],
  high: [1, 1, 1],
  resetNoise: HOPPER.resetNoise,
  qvelNoise: "uniform",
  contactForces: false,
  obsDim: HOPPER_OBS.length,
  info,
  maxEpisodeSteps: HOPPER.maxEpisodeSteps,
  observe: (d, out, off) => void writeQposQvel(d, 1, HOPPER.velClip, out, off),
  track: (d) => [(d.qpos as Float64Array)[0]!, (d.qpos as Float64Array)[2]!],
  outcome: (o) => {
    const qpos = o.d.qpos as Float64Array;
    const healthy = hopperHealthy(qpos, o.d.qvel as Float64Array);
    o.info.x_position![o.i] = qpos[0]!;
    o.info.x_progress![o.i] = qpos[0]! - o.before[0]!;
    o.info.x_velocity![o.i] = (qpos[0]! - o.before[0]!) / o.dt;
    if (o.info.healthy) o.info.healthy[o.i] = healthy ? 1 : 0;
    return rule(o, healthy);
  },
});

/** The observation and action lines of every hopper task's description. */
export const hopperBody = [
  "A one-legged planar robot (torso, thigh, leg and foot; 3 hinge joints) on flat ground; forward is +x. MuJoCo (Gymnasium Hopper-v5 model), 0.008 s per step (4 physics steps of 0.002 s).",
  "Observation (11 floats, positions then velocities): torso_z = torso height [m] (1.25 at the start), torso_angle = torso pitch [rad] (0 upright, positive leans forward), thigh_angle, leg_angle, foot_angle = joint angles [rad], " +
    "torso_vx, torso_vz = torso velocity [m/s], torso_angular_velocity [rad/s], thigh_speed, leg_speed, foot_speed = joint angular velocities [rad/s]; every velocity is clipped to −10..10.",
  `Action (continuous, 3, each −1..1, clipped): ${listNames(HOPPER_ACTIONS)} = torque commands of the hip, knee and ankle motors (gear 200); the reward code reads action.thigh_joint etc.`,
].join("\n");

const healthyLine =
  "healthy = 1 while torso_z > 0.7, |torso_angle| < 0.2 rad and every position but x and z and every unclipped velocity is inside (−100, 100), else 0";

const spec = hopperSpec((o, healthy) => {
  o.fitness[o.i] = o.info.x_progress![o.i]!;
  return !healthy;
});

export default defineTask({
  id: "hopper",
  title: "Hopper: hop forward as fast as possible without falling (Gymnasium Hopper-v5, MuJoCo)",
  description: [
    hopperBody,
    `Info fields (after the step): x_position = torso x [m] (0 at the start), x_progress = torso x gained in this step [m], x_velocity = x_progress / 0.008 s [m/s], ${healthyLine}.`,
    "Termination: healthy becomes 0. Time limit: 1000 steps (8 s, truncation). Start: the standing pose with every position and velocity perturbed by up to ±0.005.",
    "Goal: move the torso as far forward (+x) as possible within the time limit without falling.",
  ].join("\n"),
  observation: HOPPER_OBS,
  actionNames: HOPPER_ACTIONS,
  info: INFO,
  fitness: { describe: "forward distance: torso x gained over the episode [m] (an 8 s episode; 10 m ≈ Gymnasium return 2,250)", range: [-20, 40], solved: 10 },
  sparseReward: FORWARD_PROGRESS_REWARD,
  humanReward: `function reward(obs, action, nextObs, info) {
  const forward = info.x_velocity;
  const healthy = info.healthy;
  const ctrl = -1e-3 * (action.thigh_joint ** 2 + action.leg_joint ** 2 + action.foot_joint ** 2);
  return { total: forward + healthy + ctrl, components: { forward, healthy, ctrl } };
}`,
  training: { steps: 1_000_000, ppo: { numEnvs: 1, numSteps: 2048, learningRate: 3e-4, minibatchSize: 64, updateEpochs: 10, entCoef: 0.0, gamma: 0.99 } },
  maxEpisodeSteps: HOPPER.maxEpisodeSteps,
  generate: (seed) => ({ task: "hopper", seed, ...instanceSeeds(seed), params: {} }),
  prepare: () => prepareMujoco(spec),
  makeEnv: (_instance, numEnvs, firstEnv) => makeMujocoEnv(spec, numEnvs, firstEnv),
});
