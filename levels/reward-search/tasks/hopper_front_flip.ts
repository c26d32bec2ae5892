import { defineTask } from "../task.ts";
import { instanceSeeds } from "../envs/vec-env.ts";
import { makeMujocoEnv, prepareMujoco } from "../envs/mujoco/mujoco-env.ts";
import { HOPPER, HOPPER_ACTIONS, HOPPER_OBS, hopperBody, hopperSpec } from "./hopper.ts";

/**
 * Held-out: the Hopper-v5 env, but the goal is forward somersaults, so only the state-range part of Hopper's
 * health check ends an episode (a flip breaks its height and angle limits). No hand-written reward.
 */
const INFO = ["x_position", "x_progress", "x_velocity", "forward_rotation"] as const;
const TURN = 2 * Math.PI;

const spec = hopperSpec((o) => {
  const rotation = (o.d.qpos as Float64Array)[2]! - o.before[1]!;
  o.info.forward_rotation![o.i] = rotation;
  o.fitness[o.i] = rotation / TURN;
  const inside = (v: number) => v > -HOPPER.maxState && v < HOPPER.maxState;
  return !(o.d.qpos as Float64Array).slice(2).every(inside) || !(o.d.qvel as Float64Array).every(inside);
}, INFO);

export default defineTask({
  id: "hopper_front_flip",
  title: "Hopper: do as many forward somersaults as possible (held out, no hand-written reward)",
  description: [
    hopperBody,
    "torso_angle is not wrapped: it grows by 2π (6.283 rad) with every full forward turn of the torso and falls by 2π with every backward one.",
    "Info fields (after the step): x_position = torso x [m] (0 at the start), x_progress = torso x gained in this step [m], x_velocity = x_progress / 0.008 s [m/s], forward_rotation = torso_angle gained in this step [rad] (positive = forward).",
    "Termination: only when a position other than x and z, or a velocity, leaves (−100, 100) (falling over does NOT end the episode). Time limit: 1000 steps (8 s, truncation). Start: standing, every position and velocity perturbed by up to ±0.005.",
    "Goal: turn the torso forward, head over heels, as many full turns as possible within the time limit (front flips).",
  ].join("\n"),
  observation: HOPPER_OBS,
  actionNames: HOPPER_ACTIONS,
  info: INFO,
  fitness: { describe: "forward somersaults: net forward turns of the torso over the episode (torso angle gained / 2π) [turns]", range: [-16, 16], solved: 1 },
  sparseReward: `function reward(obs, action, nextObs, info) {
  const rotation = info.forward_rotation;
  return { total: rotation, components: { rotation } };
}`,
  humanReward: null,
  training: { steps: 1_000_000, ppo: { numEnvs: 1, numSteps: 2048, learningRate: 3e-4, minibatchSize: 64, updateEpochs: 10, entCoef: 0.0, gamma: 0.99 } },
  maxEpisodeSteps: HOPPER.maxEpisodeSteps,
  generate: (seed) => ({ task: "hopper_front_flip", seed, ...instanceSeeds(seed), params: {} }),
  prepare: () => prepareMujoco(spec),
  makeEnv: (_instance, numEnvs, firstEnv) => makeMujocoEnv(spec, numEnvs, firstEnv),
});
