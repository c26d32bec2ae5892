import { defineTask } from "../task.ts";
import { instanceSeeds } from "../envs/vec-env.ts";
import { makeMujocoEnv, prepareMujoco } from "../envs/mujoco/mujoco-env.ts";
import { HALF_CHEETAH, HALF_CHEETAH_ACTIONS, HALF_CHEETAH_INFO, HALF_CHEETAH_OBS, halfCheetahDescription, halfCheetahSpec } from "./half_cheetah.ts";

/** Held-out: the HalfCheetah-v5 env, but run backwards (−x); no hand-written reward. */
const spec = halfCheetahSpec(-1);

export default defineTask({
  id: "half_cheetah_backward",
  title: "HalfCheetah: run backwards as fast as possible (held out, no hand-written reward)",
  description: halfCheetahDescription("move the torso as far BACKWARD (−x, tail first) as possible within the time limit."),
  observation: HALF_CHEETAH_OBS,
  actionNames: HALF_CHEETAH_ACTIONS,
  info: HALF_CHEETAH_INFO,
  fitness: { describe: "backward distance: torso x lost over the episode [m] (a 50 s episode; 50 m ≈ 1 m/s)", range: [-800, 200], solved: 50 },
  sparseReward: `function reward(obs, action, nextObs, info) {
  const progress = -info.x_progress;
  return { total: progress, components: { progress } };
}`,
  humanReward: null,
  training: { steps: 1_000_000, ppo: { numEnvs: 1, numSteps: 2048, learningRate: 3e-4, minibatchSize: 64, updateEpochs: 10, entCoef: 0.0, gamma: 0.99 } },
  maxEpisodeSteps: HALF_CHEETAH.maxEpisodeSteps,
  generate: (seed) => ({ task: "half_cheetah_backward", seed, ...instanceSeeds(seed), params: {} }),
  prepare: () => prepareMujoco(spec),
  makeEnv: (_instance, numEnvs, firstEnv) => makeMujocoEnv(spec, numEnvs, firstEnv),
});
