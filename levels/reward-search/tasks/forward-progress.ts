/** The sparse reward of the forward-locomotion tasks (hopper, walker2d, half_cheetah, ant, humanoid): forward progress alone. */
export const FORWARD_PROGRESS_REWARD = `function reward(obs, action, nextObs, info) {
  const progress = info.x_progress;
  return { total: progress, components: { progress } };
}`;
