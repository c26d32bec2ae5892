import { LANDER, LANDER_ACTIONS, LanderWorld, type LanderParams } from "../envs/rl-lander.ts";
import type { Rng } from "../../../src/util/rng.ts";
import { defineTask, type InfoBatch, type TaskInstance } from "../task.ts";
import { instanceSeeds, makeVecEnv, paramRng, round4, type EnvCore } from "../envs/vec-env.ts";

/**
 * Land softly on the pad: a simplified, wind-free LunarLander on planck (src/sim/rl-lander.ts), discrete
 * actions in LunarLander's order. Gravity, engine strengths and the pad's position vary per seed.
 */
export const LANDER_TASK = {
  maxEpisodeSteps: 450,
  padHalfWidth: 1.5,
  start: { xRange: 4, yLow: 6, yHigh: 8, vx: 1.0, vyLow: -1.5, vyHigh: 0, angle: 0.15, spin: 0.2 },
} as const;

export const LANDER_OBS = ["x", "y", "vx", "vy", "angle", "angular_velocity", "left_leg_contact", "right_leg_contact"] as const;
export const LANDER_INFO = [
  "left_leg_contact",
  "right_leg_contact",
  "speed",
  "distance_to_pad",
  "on_pad",
  "crashed",
  "landed",
  "out_of_bounds",
  "main_engine",
  "side_engine",
] as const;

export const landerParams = (taskId: string, seed: number): Record<string, number> => {
  const rng = paramRng(taskId, seed);
  return {
    gravity: round4(rng.uniform(8.5, 10.5)),
    mainThrust: round4(rng.uniform(1.6, 1.9)),
    sideThrust: round4(rng.uniform(0.13, 0.17)),
    padX: round4(rng.uniform(-3, 3)),
  };
};

/** Fitness of one transition from the lander's report: x is the lander's centre relative to the pad centre. */
export type LanderFitness = (landed: boolean, x: number, padHalfWidth: number) => number;

export const landerCore = (instance: TaskInstance, numEnvs: number, fitnessOf: LanderFitness): EnvCore => {
  const p = instance.params;
  const params: LanderParams = {
    gravity: p.gravity ?? 10,
    mainThrust: p.mainThrust ?? 1.75,
    sideThrust: p.sideThrust ?? 0.15,
    padX: p.padX ?? 0,
    padHalfWidth: LANDER_TASK.padHalfWidth,
  };
  const worlds = Array.from({ length: numEnvs }, () => new LanderWorld(params));
  const raw = new Float64Array(6);
  const legs = new Uint8Array(numEnvs * 2);
  const write = (i: number, out: Float64Array, off: number) => {
    worlds[i]!.read(raw, 0);
    out[off] = raw[0]! - params.padX;
    out[off + 1] = raw[1]!;
    out[off + 2] = raw[2]!;
    out[off + 3] = raw[3]!;
    out[off + 4] = raw[4]!;
    out[off + 5] = raw[5]!;
    out[off + 6] = legs[i * 2]!;
    out[off + 7] = legs[i * 2 + 1]!;
  };
  const st = LANDER_TASK.start;
  return {
    obsDim: 8,
    action: { kind: "discrete", n: 4 },
    info: LANDER_INFO,
    maxEpisodeSteps: LANDER_TASK.maxEpisodeSteps,
    reset(i: number, rng: Rng, obs: Float64Array, off: number) {
      worlds[i]!.reset({
        x: rng.uniform(-st.xRange, st.xRange),
        y: rng.uniform(st.yLow, st.yHigh),
        vx: rng.uniform(-st.vx, st.vx),
        vy: rng.uniform(st.vyLow, st.vyHigh),
        angle: rng.uniform(-st.angle, st.angle),
        angularVelocity: rng.uniform(-st.spin, st.spin),
      });
      legs[i * 2] = 0;
      legs[i * 2 + 1] = 0;
      write(i, obs, off);
    },
    step(i: number, actions: Int32Array | Float64Array, aOff: number, nextObs: Float64Array, off: number, info: InfoBatch, fitness: Float64Array) {
      const a = actions[aOff]!;
      const r = worlds[i]!.step(a);
      legs[i * 2] = r.leftLeg ? 1 : 0;
      legs[i * 2 + 1] = r.rightLeg ? 1 : 0;
      write(i, nextObs, off);
      const x = nextObs[off]!;
      const y = nextObs[off + 1]!;
      const onPad = Math.abs(x) <= params.padHalfWidth;
      info.left_leg_contact![i] = legs[i * 2]!;
      info.right_leg_contact![i] = legs[i * 2 + 1]!;
      info.speed![i] = Math.hypot(nextObs[off + 2]!, nextObs[off + 3]!);
      info.distance_to_pad![i] = Math.hypot(x, y - LANDER.standHeight);
      info.on_pad![i] = onPad ? 1 : 0;
      info.crashed![i] = r.crashed ? 1 : 0;
      info.landed![i] = r.landed ? 1 : 0;
      info.out_of_bounds![i] = r.outOfBounds ? 1 : 0;
      info.main_engine![i] = a === 2 ? 1 : 0;
      info.side_engine![i] = a === 1 || a === 3 ? 1 : 0;
      fitness[i] = fitnessOf(r.landed, x, params.padHalfWidth);
      return r.crashed || r.landed || r.outOfBounds;
    },
  };
};

export const landerDescription = (goal: string): string =>
  [
    "A 2D lander (a 1.0 m × 0.7 m hull on two splayed legs, feet 1.5 m apart) falls toward flat ground under gravity; it has a main engine under the hull and two side thrusters. No wind. A landing pad 3 m wide (x from −1.5 to +1.5 in the observation's frame) lies on the ground.",
    "Observation (8 floats): x = horizontal position of the lander's centre relative to the pad centre [m] (world edges about 10 m either side), y = height of the centre above the ground [m] (about 0.75 when standing on both legs; starts at 6..8), " +
      "vx, vy = velocity [m/s] (typically within ±5), angle = tilt [rad] (0 upright, positive counter-clockwise, −π..π), angular_velocity [rad/s], left_leg_contact and right_leg_contact = 1 when that leg touches the ground, else 0.",
    "Action (discrete, 4): 0 = noop, 1 = fire_left (left side thruster: pushes the lander toward its right and turns it clockwise), 2 = fire_main (main engine along the lander's up axis, about 1.6–1.9 × its weight), 3 = fire_right (mirror of fire_left); the reward code receives the index.",
    "Info fields (after the step): left_leg_contact, right_leg_contact (0/1), speed [m/s], distance_to_pad = distance from the centre to the standing point on the pad centre [m], on_pad (1 when |x| ≤ 1.5), " +
      "crashed (1 when the hull touched the ground or a leg touched down faster than 2.5 m/s), landed (1 when resting on both legs, speed < 0.1 m/s and |angular_velocity| < 0.1 for 10 steps), out_of_bounds (1 beyond 10 m sideways or above 15 m), main_engine and side_engine (1 when fired this step).",
    "Dynamics: planck (Box2D) at 30 Hz; gravity 8.5–10.5 m/s², engine strengths and the pad's place in the world vary per seed.",
    "Termination: crashed, landed or out_of_bounds. Time limit: 450 steps (15 s, truncation). Start: x within ±4 m of the world centre, 6–8 m up, small random velocity, tilt and spin.",
    `Goal: ${goal}`,
  ].join("\n");

export default defineTask({
  id: "lander",
  title: "Lander: land softly on the pad (simplified 2D LunarLander on planck)",
  description: landerDescription("come to rest on both legs on the pad (|x| ≤ 1.5 m) without crashing, within the time limit."),
  observation: LANDER_OBS,
  actionNames: [...LANDER_ACTIONS],
  info: LANDER_INFO,
  fitness: {
    describe: "1 if the episode ends landed (at rest on both legs) with the centre over the pad (|x| ≤ 1.5 m), else 0 [success]",
    range: [0, 1],
    solved: 0.75,
  },
  sparseReward: `function reward(obs, action, nextObs, info) {
  const success = info.landed && info.on_pad ? 1 : 0;
  return { total: success, components: { success } };
}`,
  humanReward: `function reward(obs, action, nextObs, info) {
  const phi = (s) => -10 * Math.hypot(s.x, s.y - 0.75) - 10 * Math.hypot(s.vx, s.vy) - 50 * Math.abs(s.angle) + 10 * (s.left_leg_contact + s.right_leg_contact);
  const shaping = phi(nextObs) - phi(obs);
  const fuel = -0.3 * info.main_engine - 0.03 * info.side_engine;
  const crash = info.crashed || info.out_of_bounds ? -100 : 0;
  const land = info.landed ? (info.on_pad ? 100 : 20) : 0;
  return { total: (shaping + fuel + crash + land) / 10, components: { shaping, fuel, crash, land } };
}`,
  training: { steps: 600_000, ppo: { numEnvs: 8, numSteps: 256, learningRate: 3e-4, minibatchSize: 512, updateEpochs: 4, entCoef: 0.01, gamma: 0.99 } },
  maxEpisodeSteps: LANDER_TASK.maxEpisodeSteps,
  generate: (seed) => ({ task: "lander", seed, ...instanceSeeds(seed), params: landerParams("lander", seed) }),
  makeEnv: (instance, numEnvs) =>
    makeVecEnv(
      numEnvs,
      landerCore(instance, numEnvs, (landed, x, half) => (landed && Math.abs(x) <= half ? 1 : 0)),
    ),
});
