import { defineTask } from "../task.ts";
import { instanceSeeds } from "../envs/vec-env.ts";
import { makeMujocoEnv, prepareMujoco } from "../envs/mujoco/mujoco-env.ts";
import { ANT, ANT_ACTIONS, ANT_INFO, ANT_OBS, antDescription, antSpec } from "./ant.ts";

/** Held-out: the Ant-v5 env, but walk along +y (sideways to its usual goal); no hand-written reward. */
const spec = antSpec((_dx, dy) => dy);

export default defineTask({
  id: "ant_along_y",
  title: "Ant: walk along +y as far as possible without flipping (held out, no hand-written reward)",
  description: antDescription("move the torso as far along +y as possible within the time limit without flipping over (x does not matter)."),
  observation: ANT_OBS,
  actionNames: ANT_ACTIONS,
  info: ANT_INFO,
  fitness: { describe: "distance along +y: torso y gained over the episode [m] (a 50 s episode; 50 m ≈ 1 m/s)", range: [-100, 300], solved: 50 },
  sparseReward: `function reward(obs, action, nextObs, info) {
  const progress = info.y_progress;
  return { total: progress, components: { progress } };
}`,
  humanReward: null,
  training: { steps: 1_000_000, ppo: { numEnvs: 1, numSteps: 2048, learningRate: 3e-4, minibatchSize: 64, updateEpochs: 10, entCoef: 0.0, gamma: 0.99 } },
  maxEpisodeSteps: ANT.maxEpisodeSteps,
  generate: (seed) => ({ task: "ant_along_y", seed, ...instanceSeeds(seed), params: {} }),
  prepare: () => prepareMujoco(spec),
  makeEnv: (_instance, numEnvs, firstEnv) => makeMujocoEnv(spec, numEnvs, firstEnv),
});
