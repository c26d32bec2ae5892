import type { Rng } from "../../../src/util/rng.ts";
import { defineTask, type InfoBatch, type TaskInstance } from "../task.ts";
import { instanceSeeds, makeVecEnv, paramRng, round4, type EnvCore } from "../envs/vec-env.ts";

/**
 * Pendulum swing-up with Gymnasium Pendulum-v1's constants and closed-form dynamics
 * (gymnasium/envs/classic_control/pendulum.py): g = 10, m = 1, l = 1, dt = 0.05 s, |torque| ≤ 2 N·m,
 * |θ̇| ≤ 8 rad/s, θ₀ ~ U(−π, π), θ̇₀ ~ U(−1, 1), 200 steps, no termination. Mass and length vary ±10% and
 * gravity ±3% per seed. F is the Gymnasium return; solved at F ≥ −150 (Gymnasium sets no threshold; −150 is
 * a good swing-up and hold from a random start, and a policy that only swings up late or wobbles scores ≤ −160).
 */
const PENDULUM = { gravity: 10.0, mass: 1.0, length: 1.0, dt: 0.05, maxTorque: 2.0, maxSpeed: 8.0, maxEpisodeSteps: 200 } as const;

const OBS = ["cos_theta", "sin_theta", "theta_dot"] as const;
const INFO = ["theta", "upright"] as const;

/** Angle wrapped to [−π, π), as Gymnasium's angle_normalize. */
const wrapAngle = (x: number): number => ((((x + Math.PI) % (2 * Math.PI)) + 2 * Math.PI) % (2 * Math.PI)) - Math.PI;

const core = (instance: TaskInstance, numEnvs: number): EnvCore => {
  const p = instance.params;
  const g = p.gravity ?? PENDULUM.gravity;
  const m = p.mass ?? PENDULUM.mass;
  const l = p.length ?? PENDULUM.length;
  const { dt, maxSpeed } = PENDULUM;
  const th = new Float64Array(numEnvs);
  const thDot = new Float64Array(numEnvs);
  const write = (i: number, out: Float64Array, off: number) => {
    out[off] = Math.cos(th[i]!);
    out[off + 1] = Math.sin(th[i]!);
    out[off + 2] = thDot[i]!;
  };
  return {
    obsDim: 3,
    action: { kind: "continuous", dim: 1, low: [-PENDULUM.maxTorque], high: [PENDULUM.maxTorque] },
    info: INFO,
    maxEpisodeSteps: PENDULUM.maxEpisodeSteps,
    reset(i: number, rng: Rng, obs: Float64Array, off: number) {
      th[i] = rng.uniform(-Math.PI, Math.PI);
      thDot[i] = rng.uniform(-1, 1);
      write(i, obs, off);
    },
    step(i: number, actions: Int32Array | Float64Array, aOff: number, nextObs: Float64Array, off: number, info: InfoBatch, fitness: Float64Array) {
      const u = actions[aOff]!;
      const a = wrapAngle(th[i]!);
      const w = thDot[i]!;
      fitness[i] = -(a * a + 0.1 * w * w + 0.001 * u * u);
      let nw = w + (((3 * g) / (2 * l)) * Math.sin(th[i]!) + (3.0 / (m * l * l)) * u) * dt;
      nw = nw < -maxSpeed ? -maxSpeed : nw > maxSpeed ? maxSpeed : nw;
      th[i] = th[i]! + nw * dt;
      thDot[i] = nw;
      write(i, nextObs, off);
      const nt = wrapAngle(th[i]!);
      info.theta![i] = nt;
      info.upright![i] = Math.cos(nt) > 0.95 ? 1 : 0;
      return false;
    },
  };
};

export default defineTask({
  id: "pendulum",
  title: "Pendulum: swing a torque-limited pendulum up and hold it upright (Gymnasium Pendulum-v1)",
  description: [
    "A rigid pendulum hangs from a frictionless pivot; a motor at the pivot applies a limited torque, too weak to lift it directly, so it must be swung up and then balanced upright.",
    "Observation (3 floats): cos_theta and sin_theta = cosine and sine of the pendulum angle theta (theta = 0 is upright, ±π hanging down; each in −1..1), theta_dot = angular velocity [rad/s] (−8..8).",
    "Action (continuous, 1): torque = motor torque [N·m] in −2..2 (clipped); the reward code reads action.torque.",
    "Info fields: theta (the post-step angle [rad], wrapped to −π..π, 0 = upright) and upright (1 when cos(theta) > 0.95, i.e. within about 18° of vertical, else 0).",
    "Dynamics: Gymnasium Pendulum-v1 (0.05 s per step, 20 Hz, g ≈ 10 m/s², mass ≈ 1 kg, length ≈ 1 m; these vary slightly per seed).",
    "Termination: none. Time limit: 200 steps (truncation). Initial state: theta uniform in −π..π, theta_dot uniform in −1..1.",
    "Goal: bring the pendulum upright as fast as possible and keep it there, still, with little torque. Score per step: −(theta² + 0.1·theta_dot² + 0.001·torque²) with theta and theta_dot before the step (the Gymnasium cost).",
  ].join("\n"),
  observation: OBS,
  actionNames: ["torque"],
  info: INFO,
  fitness: {
    describe: "Gymnasium Pendulum return: sum over steps of −(θ² + 0.1·θ̇² + 0.001·u²), θ wrapped to [−π, π) [unitless cost, higher is better]",
    range: [-200 * (Math.PI ** 2 + 0.1 * 64 + 0.001 * 4), 0],
    solved: -150,
  },
  sparseReward: `function reward(obs, action, nextObs, info) {
  const upright = info.upright;
  return { total: upright, components: { upright } };
}`,
  humanReward: `function reward(obs, action, nextObs, info) {
  const theta = Math.atan2(obs.sin_theta, obs.cos_theta);
  const angle = -(theta * theta) / 10;
  const speed = -0.01 * obs.theta_dot * obs.theta_dot;
  const effort = -0.0001 * action.torque * action.torque;
  return { total: angle + speed + effort, components: { angle, speed, effort } };
}`,
  training: {
    steps: 200_000,
    ppo: { numEnvs: 8, numSteps: 256, learningRate: 1e-3, gamma: 0.95, gaeLambda: 0.95, minibatchSize: 256, updateEpochs: 10, entCoef: 0.0, clipCoef: 0.2 },
  },
  maxEpisodeSteps: PENDULUM.maxEpisodeSteps,
  generate: (seed) => {
    const rng = paramRng("pendulum", seed);
    return {
      task: "pendulum",
      seed,
      ...instanceSeeds(seed),
      params: {
        mass: round4(PENDULUM.mass * rng.uniform(0.9, 1.1)),
        length: round4(PENDULUM.length * rng.uniform(0.9, 1.1)),
        gravity: round4(PENDULUM.gravity * rng.uniform(0.97, 1.03)),
      },
    };
  },
  makeEnv: (instance, numEnvs) => makeVecEnv(numEnvs, core(instance, numEnvs)),
});
