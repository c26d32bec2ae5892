import type { Rng } from "../../../src/util/rng.ts";
import { defineTask, type InfoBatch, type TaskInstance } from "../task.ts";
import { instanceSeeds, makeVecEnv, paramRng, round4, type EnvCore } from "../envs/vec-env.ts";

/**
 * Mountain car with continuous force, Gymnasium MountainCarContinuous-v0's constants and dynamics
 * (gymnasium/envs/classic_control/continuous_mountain_car.py): x ∈ [−1.2, 0.6], |v| ≤ 0.07, goal x ≥ 0.45,
 * power 0.0015, hill term 0.0025·cos(3x), x₀ ~ U(−0.6, −0.4), v₀ = 0, 999 steps. Engine power varies ±5% and
 * the hill term ±3% per seed (power stays too weak to drive straight up).
 */
const MOUNTAIN_CAR = {
  minPosition: -1.2,
  maxPosition: 0.6,
  maxSpeed: 0.07,
  goalPosition: 0.45,
  power: 0.0015,
  hill: 0.0025,
  maxEpisodeSteps: 999,
} as const;

const OBS = ["position", "velocity"] as const;
const INFO = ["reached_goal", "height"] as const;

const core = (instance: TaskInstance, numEnvs: number): EnvCore => {
  const power = instance.params.power ?? MOUNTAIN_CAR.power;
  const hill = instance.params.hill ?? MOUNTAIN_CAR.hill;
  const { minPosition, maxPosition, maxSpeed, goalPosition } = MOUNTAIN_CAR;
  const pos = new Float64Array(numEnvs);
  const vel = new Float64Array(numEnvs);
  return {
    obsDim: 2,
    action: { kind: "continuous", dim: 1, low: [-1], high: [1] },
    info: INFO,
    maxEpisodeSteps: MOUNTAIN_CAR.maxEpisodeSteps,
    reset(i: number, rng: Rng, obs: Float64Array, off: number) {
      pos[i] = rng.uniform(-0.6, -0.4);
      vel[i] = 0;
      obs[off] = pos[i]!;
      obs[off + 1] = 0;
    },
    step(i: number, actions: Int32Array | Float64Array, aOff: number, nextObs: Float64Array, off: number, info: InfoBatch, fitness: Float64Array) {
      const force = actions[aOff]!;
      let v = vel[i]! + force * power - hill * Math.cos(3 * pos[i]!);
      v = v < -maxSpeed ? -maxSpeed : v > maxSpeed ? maxSpeed : v;
      let x = pos[i]! + v;
      x = x < minPosition ? minPosition : x > maxPosition ? maxPosition : x;
      if (x === minPosition && v < 0) v = 0;
      pos[i] = x;
      vel[i] = v;
      nextObs[off] = x;
      nextObs[off + 1] = v;
      const reached = x >= goalPosition && v >= 0;
      info.reached_goal![i] = reached ? 1 : 0;
      info.height![i] = Math.sin(3 * x);
      fitness[i] = (reached ? 100 : 0) - 0.1 * force * force;
      return reached;
    },
  };
};

export default defineTask({
  id: "mountain_car_continuous",
  title: "Mountain car (continuous): rock an underpowered car up to the flag (Gymnasium MountainCarContinuous-v0)",
  description: [
    "A car sits in a valley between two hills on a 1-D track; its engine is too weak to climb the right hill directly, so it must rock back and forth to build momentum and reach the flag on the right hilltop.",
    "Observation (2 floats): position = car position along the track [m] (−1.2..0.6; the valley bottom is near −0.52, the flag at 0.45), velocity = car velocity [m/step] (−0.07..0.07).",
    "Action (continuous, 1): force = engine force in −1..1 (clipped; negative pushes left); the reward code reads action.force.",
    "Info fields: reached_goal (1 when position ≥ 0.45 with velocity ≥ 0 after the step, else 0) and height = sin(3·position), the track height after the step (−1..1).",
    "Dynamics: Gymnasium MountainCarContinuous-v0 (velocity += force·0.0015 − 0.0025·cos(3·position); engine power and the hill term vary slightly per seed); the left wall at −1.2 stops the car.",
    "Termination: reached_goal. Time limit: 999 steps (truncation). Initial state: position uniform in −0.6..−0.4, velocity 0.",
    "Goal: reach the flag, using little engine effort. Score: +100 on reaching the flag, minus 0.1·force² every step (the Gymnasium return).",
  ].join("\n"),
  observation: OBS,
  actionNames: ["force"],
  info: INFO,
  fitness: { describe: "Gymnasium MountainCarContinuous return: 100 on reaching the flag minus 0.1·Σ force² [points]", range: [-99.9, 100], solved: 90 },
  sparseReward: `function reward(obs, action, nextObs, info) {
  const goal = info.reached_goal;
  return { total: goal, components: { goal } };
}`,
  humanReward: `function reward(obs, action, nextObs, info) {
  const energy = (s) => 0.0025 * Math.sin(3 * s.position) / 3 + 0.5 * s.velocity * s.velocity;
  const shaping = 20000 * (0.99 * energy(nextObs) - energy(obs));
  const goal = info.reached_goal ? 100 : 0;
  const effort = -0.1 * action.force * action.force;
  return { total: (goal + effort + shaping) / 10, components: { goal, effort, shaping } };
}`,
  training: { steps: 150_000, ppo: { numEnvs: 8, numSteps: 256, learningRate: 3e-4, minibatchSize: 256, updateEpochs: 10, entCoef: 0.0, gamma: 0.99 } },
  maxEpisodeSteps: MOUNTAIN_CAR.maxEpisodeSteps,
  generate: (seed) => {
    const rng = paramRng("mountain_car_continuous", seed);
    return {
      task: "mountain_car_continuous",
      seed,
      ...instanceSeeds(seed),
      params: { power: round4(MOUNTAIN_CAR.power * rng.uniform(0.95, 1.05) * 1e4) / 1e4, hill: MOUNTAIN_CAR.hill * round4(rng.uniform(0.97, 1.03)) },
    };
  },
  makeEnv: (instance, numEnvs) => makeVecEnv(numEnvs, core(instance, numEnvs)),
});
