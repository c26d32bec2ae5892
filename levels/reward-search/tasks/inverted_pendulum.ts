import { defineTask } from "../task.ts";
import { instanceSeeds } from "../envs/vec-env.ts";
import { makeMujocoEnv, prepareMujoco, type MujocoSpec } from "../envs/mujoco/mujoco-env.ts";
import { writeQposQvel } from "../envs/mujoco/observe.ts";

/**
 * Gymnasium InvertedPendulum-v5 (gymnasium/envs/mujoco/inverted_pendulum_v5.py; envs/mujoco/assets/README.md):
 * inverted_pendulum.xml, frame_skip 2 (dt 0.04 s), observation qpos + qvel, reset noise U(±0.01), ends when
 * |pole angle| > 0.2 rad or the observation is not finite; reward 1 per step that does not end it; 1000 steps.
 */
const INVERTED_PENDULUM = { frameSkip: 2, resetNoise: 0.01, maxAngle: 0.2, maxEpisodeSteps: 1000 } as const;

const OBS = ["cart_position", "pole_angle", "cart_velocity", "pole_angular_velocity"] as const;
const INFO = ["balanced", "steps"] as const;

const invertedPendulumSpec: MujocoSpec = {
  model: "inverted_pendulum.xml",
  frameSkip: INVERTED_PENDULUM.frameSkip,
  low: [-3],
  high: [3],
  resetNoise: INVERTED_PENDULUM.resetNoise,
  qvelNoise: "uniform",
  contactForces: false,
  obsDim: OBS.length,
  info: INFO,
  maxEpisodeSteps: INVERTED_PENDULUM.maxEpisodeSteps,
  observe: (d, out, off) => void writeQposQvel(d, 0, Infinity, out, off),
  track: () => [],
  outcome: (o) => {
    const fell = !o.obs.every(Number.isFinite) || Math.abs(o.obs[1]!) > INVERTED_PENDULUM.maxAngle;
    o.info.balanced![o.i] = fell ? 0 : 1;
    o.info.steps![o.i] = o.steps;
    o.fitness[o.i] = fell ? 0 : 1;
    return fell;
  },
};

export default defineTask({
  id: "inverted_pendulum",
  title: "Inverted pendulum: balance a pole on a sliding cart (Gymnasium InvertedPendulum-v5, MuJoCo)",
  description: [
    "A cart slides along a 2 m rail (x in about −1..1 m); a pole is hinged on top of it. A motor pushes the cart; the pole must stay upright. MuJoCo (Gymnasium InvertedPendulum-v5 model), 0.04 s per step (2 physics steps of 0.02 s).",
    "Observation (4 floats): cart_position [m], pole_angle [rad] (0 upright), cart_velocity [m/s], pole_angular_velocity [rad/s].",
    "Action (continuous, 1): force = push on the cart, −3..3 (clipped); the reward code reads action.force.",
    "Info fields (after the step): balanced = 1 when the step leaves |pole_angle| ≤ 0.2 rad (and the state finite), else 0; steps = steps since the episode started, this one included (1..1000).",
    "Termination: |pole_angle| > 0.2 rad. Time limit: 1000 steps (40 s, truncation). Start: upright and still, every position and velocity perturbed by up to ±0.01.",
    "Goal: keep the pole balanced for the whole episode.",
  ].join("\n"),
  observation: OBS,
  actionNames: ["force"],
  info: INFO,
  fitness: { describe: "steps balanced: steps of the episode that leave |pole angle| ≤ 0.2 rad [steps, 1000 at most]", range: [0, 1000], solved: 950 },
  sparseReward: `function reward(obs, action, nextObs, info) {
  const survived = info.steps === 1000 && info.balanced ? 1 : 0;
  return { total: survived, components: { survived } };
}`,
  humanReward: `function reward(obs, action, nextObs, info) {
  const alive = info.balanced;
  return { total: alive, components: { alive } };
}`,
  training: { steps: 1_000_000, ppo: { numEnvs: 1, numSteps: 2048, learningRate: 3e-4, minibatchSize: 64, updateEpochs: 10, entCoef: 0.0, gamma: 0.99 } },
  maxEpisodeSteps: INVERTED_PENDULUM.maxEpisodeSteps,
  generate: (seed) => ({ task: "inverted_pendulum", seed, ...instanceSeeds(seed), params: {} }),
  prepare: () => prepareMujoco(invertedPendulumSpec),
  makeEnv: (_instance, numEnvs, firstEnv) => makeMujocoEnv(invertedPendulumSpec, numEnvs, firstEnv),
});
