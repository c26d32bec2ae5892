import { LANDER_ACTIONS } from "../envs/rl-lander.ts";
import { defineTask } from "../task.ts";
import { instanceSeeds, makeVecEnv } from "../envs/vec-env.ts";
import { LANDER_INFO, LANDER_OBS, LANDER_TASK, landerCore, landerDescription, landerParams } from "./lander.ts";

/** Held-out: the lander env, but success only on the pad's left half; no hand-written reward. */
export default defineTask({
  id: "lander_left_half",
  title: "Lander: land softly on the left half of the pad (held out, no hand-written reward)",
  description: landerDescription(
    "come to rest on both legs with the lander's centre over the LEFT half of the pad (−1.5 ≤ x ≤ 0 m) without crashing, within the time limit.",
  ),
  observation: LANDER_OBS,
  actionNames: [...LANDER_ACTIONS],
  info: LANDER_INFO,
  fitness: {
    describe: "1 if the episode ends landed (at rest on both legs) with the centre over the pad's left half (−1.5 ≤ x ≤ 0 m), else 0 [success]",
    range: [0, 1],
    solved: 0.75,
  },
  sparseReward: `function reward(obs, action, nextObs, info) {
  const success = info.landed && nextObs.x >= -1.5 && nextObs.x <= 0 ? 1 : 0;
  return { total: success, components: { success } };
}`,
  humanReward: null,
  training: { steps: 600_000, ppo: { numEnvs: 8, numSteps: 256, learningRate: 3e-4, minibatchSize: 512, updateEpochs: 4, entCoef: 0.01, gamma: 0.99 } },
  maxEpisodeSteps: LANDER_TASK.maxEpisodeSteps,
  generate: (seed) => ({ task: "lander_left_half", seed, ...instanceSeeds(seed), params: landerParams("lander_left_half", seed) }),
  makeEnv: (instance, numEnvs) =>
    makeVecEnv(
      numEnvs,
      landerCore(instance, numEnvs, (landed, x, half) => (landed && x >= -half && x <= 0 ? 1 : 0)),
    ),
});
