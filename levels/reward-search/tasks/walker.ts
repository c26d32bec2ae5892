import { WALKER_JOINTS, WalkerWorld, type WalkerParams } from "../envs/rl-walker.ts";
import type { Rng } from "../../../src/util/rng.ts";
import { defineTask, type InfoBatch, type TaskInstance } from "../task.ts";
import { instanceSeeds, makeVecEnv, paramRng, round4, type EnvCore } from "../envs/vec-env.ts";

/** Move forward: a planar two-legged walker on planck (src/sim/rl-walker.ts), continuous joint torques. */
const WALKER_TASK = { maxEpisodeSteps: 400, fallAngle: 1.0, jitter: 0.1 } as const;

const OBS = [
  "torso_height",
  "torso_angle",
  "vx",
  "vy",
  "angular_velocity",
  "back_hip_angle",
  "back_knee_angle",
  "front_hip_angle",
  "front_knee_angle",
  "back_hip_speed",
  "back_knee_speed",
  "front_hip_speed",
  "front_knee_speed",
  "back_foot_contact",
  "front_foot_contact",
] as const;
const INFO = ["x_position", "forward_progress", "forward_velocity", "fell"] as const;

const core = (instance: TaskInstance, numEnvs: number): EnvCore => {
  const p = instance.params;
  const params: WalkerParams = { gravity: p.gravity ?? 9.8, motorTorque: p.motorTorque ?? 12, friction: p.friction ?? 1.0 };
  const worlds = Array.from({ length: numEnvs }, () => new WalkerWorld(params));
  const jitter = [0, 0, 0, 0];
  const write = (i: number, out: Float64Array, off: number) => {
    const w = worlds[i]!;
    w.read(out, off);
    out[off + 13] = w.contacts[0]!;
    out[off + 14] = w.contacts[1]!;
  };
  return {
    obsDim: OBS.length,
    action: { kind: "continuous", dim: 4, low: [-1, -1, -1, -1], high: [1, 1, 1, 1] },
    info: INFO,
    maxEpisodeSteps: WALKER_TASK.maxEpisodeSteps,
    reset(i: number, rng: Rng, obs: Float64Array, off: number) {
      for (let j = 0; j < 4; j++) jitter[j] = rng.uniform(-WALKER_TASK.jitter, WALKER_TASK.jitter);
      // Knees only bend backward from straight: keep their jitter inside the joint's range.
      jitter[1] = -Math.abs(jitter[1]!);
      jitter[3] = -Math.abs(jitter[3]!);
      worlds[i]!.reset(jitter);
      write(i, obs, off);
    },
    step(i: number, actions: Int32Array | Float64Array, aOff: number, nextObs: Float64Array, off: number, info: InfoBatch, fitness: Float64Array) {
      const w = worlds[i]!;
      const x0 = w.torsoX();
      w.step(actions, aOff);
      write(i, nextObs, off);
      const x1 = w.torsoX();
      const fell = Math.abs(nextObs[off + 1]!) > WALKER_TASK.fallAngle;
      info.x_position![i] = x1;
      info.forward_progress![i] = x1 - x0;
      info.forward_velocity![i] = nextObs[off + 2]!;
      info.fell![i] = fell ? 1 : 0;
      fitness[i] = x1 - x0;
      return fell;
    },
  };
};

export default defineTask({
  id: "walker",
  title: "Walker: move a planar two-legged walker forward (planck)",
  description: [
    "A planar walker (a 1.0 m × 0.2 m torso with a back and a front leg, each a 0.4 m thigh and a 0.4 m shin) stands on flat ground; motors at the hips and knees drive it. Forward is +x.",
    "Observation (15 floats): torso_height = height of the torso centre [m] (1.02 at the start), torso_angle [rad] (0 level, positive = nose up), vx, vy = torso velocity [m/s], angular_velocity = torso spin [rad/s], " +
      "back_hip_angle, back_knee_angle, front_hip_angle, front_knee_angle = joint angles [rad] (hips −1..1, knees −1.4..0.2, 0 = leg straight down), " +
      "back_hip_speed, back_knee_speed, front_hip_speed, front_knee_speed = joint angular velocities [rad/s], back_foot_contact and front_foot_contact = 1 when that shin touches the ground, else 0.",
    "Action (continuous, 4, each −1..1, clipped): back_hip, back_knee, front_hip, front_knee = motor command; each joint's motor turns toward its speed limit (hips 4 rad/s, knees 6 rad/s) in the command's direction with torque up to |command| × the torque limit (about 12 N·m); the reward code reads action.back_hip etc.",
    "Info fields (after the step): x_position = torso x [m] (0 at the start), forward_progress = torso x gained in this step [m], forward_velocity = torso vx [m/s], fell (1 when |torso_angle| > 1.0 rad).",
    "Dynamics: planck (Box2D) at 30 Hz; gravity, torque limit and ground friction vary slightly per seed; the walker's parts collide only with the ground.",
    "Termination: fell. Time limit: 400 steps (13.3 s, truncation). Start: standing, legs straight with joint angles perturbed by up to 0.1 rad.",
    "Goal: move the torso as far forward (+x) as possible within the time limit without falling over.",
  ].join("\n"),
  observation: OBS,
  actionNames: [...WALKER_JOINTS],
  info: INFO,
  fitness: { describe: "forward distance: torso x gained over the episode [m]", range: [-20, 40], solved: 16 },
  sparseReward: `function reward(obs, action, nextObs, info) {
  const progress = info.forward_progress;
  return { total: progress, components: { progress } };
}`,
  humanReward: `function reward(obs, action, nextObs, info) {
  const forward = 30 * info.forward_progress;
  const effort = -0.01 * (action.back_hip ** 2 + action.back_knee ** 2 + action.front_hip ** 2 + action.front_knee ** 2);
  const fall = info.fell ? -2 : 0;
  return { total: forward + effort + fall, components: { forward, effort, fall } };
}`,
  training: { steps: 250_000, ppo: { numEnvs: 8, numSteps: 256, learningRate: 3e-4, minibatchSize: 256, updateEpochs: 10, entCoef: 0.0, gamma: 0.99 } },
  maxEpisodeSteps: WALKER_TASK.maxEpisodeSteps,
  generate: (seed) => {
    const rng = paramRng("walker", seed);
    return {
      task: "walker",
      seed,
      ...instanceSeeds(seed),
      params: { gravity: round4(9.8 * rng.uniform(0.97, 1.03)), motorTorque: round4(12 * rng.uniform(0.9, 1.1)), friction: round4(rng.uniform(0.8, 1.2)) },
    };
  },
  makeEnv: (instance, numEnvs) => makeVecEnv(numEnvs, core(instance, numEnvs)),
});
