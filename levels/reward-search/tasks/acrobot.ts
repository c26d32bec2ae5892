import type { Rng } from "../../../src/util/rng.ts";
import { defineTask, type InfoBatch, type TaskInstance } from "../task.ts";
import { instanceSeeds, makeVecEnv, paramRng, round4, type EnvCore } from "../envs/vec-env.ts";

/**
 * Acrobot swing-up with Gymnasium Acrobot-v1's constants and closed-form dynamics ("book" equations,
 * one RK4 step of dt = 0.2 s, gymnasium/envs/classic_control/acrobot.py): unit link lengths, masses and
 * moments of inertia, centres of mass at mid-link, |θ̇₁| ≤ 4π, |θ̇₂| ≤ 9π, torque ∈ {−1, 0, 1} on the elbow,
 * no torque noise, initial state U(−0.1, 0.1)⁴, 500 steps. Link masses vary ±10% and gravity ±3% per seed.
 * Solved at F ≥ −120, looser than Gymnasium's reward_threshold −100 (a mean over 100 episodes of the fixed
 * physics): the hand-written reward's PPO policy scores about −100 on 3 evaluation seeds of varied physics.
 */
const ACROBOT = {
  dt: 0.2,
  l1: 1.0,
  lc1: 0.5,
  lc2: 0.5,
  m1: 1.0,
  m2: 1.0,
  moi: 1.0,
  gravity: 9.8,
  maxVel1: 4 * Math.PI,
  maxVel2: 9 * Math.PI,
  maxEpisodeSteps: 500,
} as const;

const OBS = ["cos_theta1", "sin_theta1", "cos_theta2", "sin_theta2", "theta1_dot", "theta2_dot"] as const;
const INFO = ["tip_height", "reached"] as const;

const wrap = (x: number, lo: number, hi: number): number => {
  const d = hi - lo;
  while (x > hi) x -= d;
  while (x < lo) x += d;
  return x;
};

const core = (instance: TaskInstance, numEnvs: number): EnvCore => {
  const p = instance.params;
  const m1 = p.m1 ?? ACROBOT.m1;
  const m2 = p.m2 ?? ACROBOT.m2;
  const g = p.gravity ?? ACROBOT.gravity;
  const { l1, lc1, lc2, moi: I1, dt, maxVel1, maxVel2 } = ACROBOT;
  const I2 = ACROBOT.moi;
  const s = new Float64Array(numEnvs * 4);
  const k = new Float64Array(4 * 4);
  const tmp = new Float64Array(4);
  /** ds/dt at y (4 values) with elbow torque a, into out[oo..oo+4). */
  const dsdt = (y: Float64Array, a: number, out: Float64Array, oo: number) => {
    const t1 = y[0]!;
    const t2 = y[1]!;
    const w1 = y[2]!;
    const w2 = y[3]!;
    const d1 = m1 * lc1 * lc1 + m2 * (l1 * l1 + lc2 * lc2 + 2 * l1 * lc2 * Math.cos(t2)) + I1 + I2;
    const d2 = m2 * (lc2 * lc2 + l1 * lc2 * Math.cos(t2)) + I2;
    const phi2 = m2 * lc2 * g * Math.cos(t1 + t2 - Math.PI / 2.0);
    const phi1 =
      -m2 * l1 * lc2 * w2 * w2 * Math.sin(t2) - 2 * m2 * l1 * lc2 * w2 * w1 * Math.sin(t2) + (m1 * lc1 + m2 * l1) * g * Math.cos(t1 - Math.PI / 2) + phi2;
    const dd2 = (a + (d2 / d1) * phi1 - m2 * l1 * lc2 * w1 * w1 * Math.sin(t2) - phi2) / (m2 * lc2 * lc2 + I2 - (d2 * d2) / d1);
    const dd1 = -(d2 * dd2 + phi1) / d1;
    out[oo] = w1;
    out[oo + 1] = w2;
    out[oo + 2] = dd1;
    out[oo + 3] = dd2;
  };
  const write = (i: number, out: Float64Array, off: number) => {
    const o = i * 4;
    out[off] = Math.cos(s[o]!);
    out[off + 1] = Math.sin(s[o]!);
    out[off + 2] = Math.cos(s[o + 1]!);
    out[off + 3] = Math.sin(s[o + 1]!);
    out[off + 4] = s[o + 2]!;
    out[off + 5] = s[o + 3]!;
  };
  const y0 = new Float64Array(4);
  return {
    obsDim: 6,
    action: { kind: "discrete", n: 3 },
    info: INFO,
    maxEpisodeSteps: ACROBOT.maxEpisodeSteps,
    reset(i: number, rng: Rng, obs: Float64Array, off: number) {
      for (let j = 0; j < 4; j++) s[i * 4 + j] = rng.uniform(-0.1, 0.1);
      write(i, obs, off);
    },
    step(i: number, actions: Int32Array | Float64Array, aOff: number, nextObs: Float64Array, off: number, info: InfoBatch, fitness: Float64Array) {
      const o = i * 4;
      const a = actions[aOff]! - 1;
      for (let j = 0; j < 4; j++) y0[j] = s[o + j]!;
      // Gymnasium's rk4 over t = [0, dt]: one classical Runge–Kutta step of size dt.
      dsdt(y0, a, k, 0);
      for (let j = 0; j < 4; j++) tmp[j] = y0[j]! + (dt / 2) * k[j]!;
      dsdt(tmp, a, k, 4);
      for (let j = 0; j < 4; j++) tmp[j] = y0[j]! + (dt / 2) * k[4 + j]!;
      dsdt(tmp, a, k, 8);
      for (let j = 0; j < 4; j++) tmp[j] = y0[j]! + dt * k[8 + j]!;
      dsdt(tmp, a, k, 12);
      const ns0 = y0[0]! + (dt / 6) * (k[0]! + 2 * k[4]! + 2 * k[8]! + k[12]!);
      const ns1 = y0[1]! + (dt / 6) * (k[1]! + 2 * k[5]! + 2 * k[9]! + k[13]!);
      const ns2 = y0[2]! + (dt / 6) * (k[2]! + 2 * k[6]! + 2 * k[10]! + k[14]!);
      const ns3 = y0[3]! + (dt / 6) * (k[3]! + 2 * k[7]! + 2 * k[11]! + k[15]!);
      s[o] = wrap(ns0, -Math.PI, Math.PI);
      s[o + 1] = wrap(ns1, -Math.PI, Math.PI);
      s[o + 2] = ns2 < -maxVel1 ? -maxVel1 : ns2 > maxVel1 ? maxVel1 : ns2;
      s[o + 3] = ns3 < -maxVel2 ? -maxVel2 : ns3 > maxVel2 ? maxVel2 : ns3;
      write(i, nextObs, off);
      const height = -Math.cos(s[o]!) - Math.cos(s[o + 1]! + s[o]!);
      const reached = height > 1.0;
      info.tip_height![i] = height;
      info.reached![i] = reached ? 1 : 0;
      fitness[i] = reached ? 0 : -1;
      return reached;
    },
  };
};

export default defineTask({
  id: "acrobot",
  title: "Acrobot: swing the tip of a two-link arm above the bar (Gymnasium Acrobot-v1)",
  description: [
    "Two links hang in a chain from a fixed shoulder joint; only the elbow joint between them is actuated. The goal is to swing the free end (the tip) up above a line one link length above the shoulder, as fast as possible.",
    "Observation (6 floats): cos_theta1 and sin_theta1 = cosine and sine of the shoulder angle theta1 (0 = first link pointing straight down), " +
      "cos_theta2 and sin_theta2 = cosine and sine of the elbow angle theta2 relative to the first link (0 = links aligned), each in −1..1; " +
      "theta1_dot = shoulder angular velocity [rad/s] (−4π..4π), theta2_dot = elbow angular velocity [rad/s] (−9π..9π).",
    "Action (discrete, 3): 0 = torque_neg (−1 N·m on the elbow), 1 = torque_zero (0), 2 = torque_pos (+1 N·m); the reward code receives the index.",
    "Info fields: tip_height = −cos(theta1) − cos(theta1 + theta2), the tip's height above the shoulder in link lengths (−2..2) after the step; reached = 1 when tip_height > 1, else 0.",
    "Dynamics: Gymnasium Acrobot-v1 (RK4, 0.2 s per step, unit-length links; link masses and gravity vary slightly per seed).",
    "Termination: reached (tip_height > 1). Time limit: 500 steps (truncation). Initial state: both angles and both velocities uniform in −0.1..0.1 (hanging still).",
    "Goal: reach tip_height > 1 in as few steps as possible.",
  ].join("\n"),
  observation: OBS,
  actionNames: ["torque_neg", "torque_zero", "torque_pos"],
  info: INFO,
  fitness: {
    describe: "minus the number of steps taken before the tip rises above the bar (Gymnasium Acrobot return) [−steps]",
    range: [-500, 0],
    solved: -120,
  },
  sparseReward: `function reward(obs, action, nextObs, info) {
  const step = info.reached ? 0 : -1;
  return { total: step, components: { step } };
}`,
  humanReward: `function reward(obs, action, nextObs, info) {
  const step = info.reached ? 0 : -1;
  const height = 0.5 * (info.tip_height - 1) / 3;
  const goal = info.reached ? 10 : 0;
  return { total: step + height + goal, components: { step, height, goal } };
}`,
  training: { steps: 300_000, ppo: { numEnvs: 8, numSteps: 128, learningRate: 2.5e-4, minibatchSize: 256, updateEpochs: 4, entCoef: 0.0, gamma: 0.99 } },
  maxEpisodeSteps: ACROBOT.maxEpisodeSteps,
  generate: (seed) => {
    const rng = paramRng("acrobot", seed);
    return {
      task: "acrobot",
      seed,
      ...instanceSeeds(seed),
      params: {
        m1: round4(ACROBOT.m1 * rng.uniform(0.9, 1.1)),
        m2: round4(ACROBOT.m2 * rng.uniform(0.9, 1.1)),
        gravity: round4(ACROBOT.gravity * rng.uniform(0.97, 1.03)),
      },
    };
  },
  makeEnv: (instance, numEnvs) => makeVecEnv(numEnvs, core(instance, numEnvs)),
});
