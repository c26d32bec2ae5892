import type { Rng } from "../../../src/util/rng.ts";
import { defineTask, type InfoBatch, type TaskInstance } from "../task.ts";
import { instanceSeeds, makeVecEnv, paramRng, round4, type EnvCore } from "../envs/vec-env.ts";

/**
 * CartPole balance with Gymnasium CartPole-v1's constants and closed-form Euler dynamics
 * (gymnasium/envs/classic_control/cartpole.py): force ±10 N, τ = 0.02 s, fail beyond ±12° or |x| > 2.4 m,
 * initial state uniform in ±0.05, 500-step limit. Pole half-length, pole and cart mass and gravity vary ±10% / ±10% /
 * ±10% / ±3% per seed.
 */
export const CARTPOLE = {
  gravity: 9.8,
  massCart: 1.0,
  massPole: 0.1,
  halfLength: 0.5,
  forceMag: 10.0,
  tau: 0.02,
  thetaLimitRad: (12 * 2 * Math.PI) / 360,
  xLimit: 2.4,
  initRange: 0.05,
  maxEpisodeSteps: 500,
} as const;

export const CARTPOLE_OBS = ["x", "x_dot", "theta", "theta_dot"] as const;
export const CARTPOLE_INFO = ["fell", "out_of_bounds", "x", "theta"] as const;

export const cartpoleParams = (taskId: string, seed: number): Record<string, number> => {
  const rng = paramRng(taskId, seed);
  return {
    halfLength: round4(CARTPOLE.halfLength * rng.uniform(0.9, 1.1)),
    massPole: round4(CARTPOLE.massPole * rng.uniform(0.9, 1.1)),
    massCart: round4(CARTPOLE.massCart * rng.uniform(0.9, 1.1)),
    gravity: round4(CARTPOLE.gravity * rng.uniform(0.97, 1.03)),
  };
};

/** Fitness increment of one transition: reads the post-step state and whether the episode failed. */
export type CartpoleFitness = (x: number, theta: number, failed: boolean) => number;

export const cartpoleCore = (instance: TaskInstance, numEnvs: number, fitnessOf: CartpoleFitness): EnvCore => {
  const p = instance.params;
  const gravity = p.gravity ?? CARTPOLE.gravity;
  const massCart = p.massCart ?? CARTPOLE.massCart;
  const massPole = p.massPole ?? CARTPOLE.massPole;
  const length = p.halfLength ?? CARTPOLE.halfLength;
  const totalMass = massCart + massPole;
  const poleMassLength = massPole * length;
  const { forceMag, tau, thetaLimitRad, xLimit, initRange } = CARTPOLE;
  const s = new Float64Array(numEnvs * 4);
  const write = (i: number, out: Float64Array, off: number) => {
    out[off] = s[i * 4]!;
    out[off + 1] = s[i * 4 + 1]!;
    out[off + 2] = s[i * 4 + 2]!;
    out[off + 3] = s[i * 4 + 3]!;
  };
  return {
    obsDim: 4,
    action: { kind: "discrete", n: 2 },
    info: CARTPOLE_INFO,
    maxEpisodeSteps: CARTPOLE.maxEpisodeSteps,
    reset(i: number, rng: Rng, obs: Float64Array, off: number) {
      for (let k = 0; k < 4; k++) s[i * 4 + k] = rng.uniform(-initRange, initRange);
      write(i, obs, off);
    },
    step(i: number, actions: Int32Array | Float64Array, aOff: number, nextObs: Float64Array, off: number, info: InfoBatch, fitness: Float64Array) {
      const o = i * 4;
      let x = s[o]!;
      let xDot = s[o + 1]!;
      let theta = s[o + 2]!;
      let thetaDot = s[o + 3]!;
      const force = actions[aOff] === 1 ? forceMag : -forceMag;
      const cosT = Math.cos(theta);
      const sinT = Math.sin(theta);
      const temp = (force + poleMassLength * thetaDot * thetaDot * sinT) / totalMass;
      const thetaAcc = (gravity * sinT - cosT * temp) / (length * (4.0 / 3.0 - (massPole * cosT * cosT) / totalMass));
      const xAcc = temp - (poleMassLength * thetaAcc * cosT) / totalMass;
      // Gymnasium's default "euler" integrator: positions use the old velocities.
      x += tau * xDot;
      xDot += tau * xAcc;
      theta += tau * thetaDot;
      thetaDot += tau * thetaAcc;
      s[o] = x;
      s[o + 1] = xDot;
      s[o + 2] = theta;
      s[o + 3] = thetaDot;
      write(i, nextObs, off);
      const fell = theta < -thetaLimitRad || theta > thetaLimitRad;
      const out = x < -xLimit || x > xLimit;
      info.fell![i] = fell ? 1 : 0;
      info.out_of_bounds![i] = out ? 1 : 0;
      info.x![i] = x;
      info.theta![i] = theta;
      fitness[i] = fitnessOf(x, theta, fell || out);
      return fell || out;
    },
  };
};

export const cartpoleDescription = (goal: string): string =>
  [
    "A pole is hinged on a cart that moves along a frictionless 1-D track; the agent pushes the cart left or right each step.",
    "Observation (4 floats): x = cart position [m] (track −2.4..2.4), x_dot = cart velocity [m/s] (unbounded, typically within ±3), " +
      "theta = pole angle from vertical [rad] (positive = leaning right, episode fails beyond ±0.2094 = 12°), theta_dot = pole angular velocity [rad/s] (unbounded, typically within ±3.5).",
    "Action (discrete, 2): 0 = push_left (−10 N), 1 = push_right (+10 N); the reward code receives the index.",
    "Info fields: fell (1 when |theta| > 12° after the step, else 0), out_of_bounds (1 when |x| > 2.4 m, else 0), x and theta (the post-step cart position and pole angle).",
    "Dynamics: Gymnasium CartPole-v1 (Euler, 0.02 s per step, 50 Hz); pole length, masses and gravity vary slightly per seed.",
    "Termination: fell or out_of_bounds. Time limit: 500 steps (truncation). Initial state: each variable uniform in ±0.05.",
    `Goal: ${goal}`,
  ].join("\n");

export const CARTPOLE_PPO = { numEnvs: 4, numSteps: 128, learningRate: 2.5e-4, minibatchSize: 128, updateEpochs: 4, entCoef: 0.01, gamma: 0.99 } as const;

export default defineTask({
  id: "cartpole",
  title: "CartPole: keep the pole upright for 500 steps (Gymnasium CartPole-v1)",
  description: cartpoleDescription("keep the pole upright and the cart on the track for as many steps as possible, up to the 500-step limit."),
  observation: CARTPOLE_OBS,
  actionNames: ["push_left", "push_right"],
  info: CARTPOLE_INFO,
  fitness: { describe: "steps balanced: number of steps after which the pole is within ±12° and the cart within ±2.4 m [steps]", range: [0, 500], solved: 475 },
  sparseReward: `function reward(obs, action, nextObs, info) {
  const balanced = info.fell || info.out_of_bounds ? 0 : 1;
  return { total: balanced, components: { balanced } };
}`,
  humanReward: `function reward(obs, action, nextObs, info) {
  const alive = info.fell || info.out_of_bounds ? 0 : 1;
  const angle = -0.5 * (nextObs.theta / 0.2094) ** 2 * alive;
  const centre = -0.1 * (nextObs.x / 2.4) ** 2 * alive;
  return { total: alive + angle + centre, components: { alive, angle, centre } };
}`,
  training: { steps: 300_000, ppo: CARTPOLE_PPO },
  maxEpisodeSteps: CARTPOLE.maxEpisodeSteps,
  generate: (seed) => ({ task: "cartpole", seed, ...instanceSeeds(seed), params: cartpoleParams("cartpole", seed) }),
  makeEnv: (instance, numEnvs) =>
    makeVecEnv(
      numEnvs,
      cartpoleCore(instance, numEnvs, (_x, _theta, failed) => (failed ? 0 : 1)),
    ),
});
