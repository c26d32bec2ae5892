import { defineTask } from "../task.ts";
import { instanceSeeds, makeVecEnv } from "../envs/vec-env.ts";
import { CARTPOLE, CARTPOLE_INFO, CARTPOLE_OBS, CARTPOLE_PPO, cartpoleCore, cartpoleDescription, cartpoleParams } from "./cartpole.ts";

/** Held-out: CartPole, but a step only counts while the cart is within 0.25 m of x = 1; no hand-written reward. */
const HOLD_X = 1.0;
const HOLD_TOLERANCE = 0.25;

export default defineTask({
  id: "cartpole_hold_x1",
  title: "CartPole: balance the pole with the cart held near x = 1 m (held out, no hand-written reward)",
  description: cartpoleDescription(
    "keep the pole upright and the cart on the track while holding the cart near x = 1 m: a step counts only if, after it, the pole is up and |x − 1| ≤ 0.25 m. The cart starts near x = 0, so it must first move there without dropping the pole.",
  ),
  observation: CARTPOLE_OBS,
  actionNames: ["push_left", "push_right"],
  info: CARTPOLE_INFO,
  fitness: {
    describe: "steps held: number of steps after which the pole is within ±12°, the cart on the track and |x − 1| ≤ 0.25 m [steps]",
    range: [0, 500],
    solved: 300,
  },
  sparseReward: `function reward(obs, action, nextObs, info) {
  const held = !info.fell && !info.out_of_bounds && Math.abs(nextObs.x - 1) <= 0.25 ? 1 : 0;
  return { total: held, components: { held } };
}`,
  humanReward: null,
  training: { steps: 500_000, ppo: CARTPOLE_PPO },
  maxEpisodeSteps: CARTPOLE.maxEpisodeSteps,
  generate: (seed) => ({ task: "cartpole_hold_x1", seed, ...instanceSeeds(seed), params: cartpoleParams("cartpole_hold_x1", seed) }),
  makeEnv: (instance, numEnvs) =>
    makeVecEnv(
      numEnvs,
      cartpoleCore(instance, numEnvs, (x, _theta, failed) => (!failed && Math.abs(x - HOLD_X) <= HOLD_TOLERANCE ? 1 : 0)),
    ),
});
