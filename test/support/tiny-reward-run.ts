/**
 * The smallest reward-search run the CLI tests play: cartpole, one offline episode and one round of one episode,
 * 3 turns each, trainings of 1,024 steps and a final one of 2,048. `rewardSearch` adds fields to that slice (e.g.
 * `cacheDir: …`).
 */
export const tinyRewardConfig = (rewardSearch?: string): string =>
  [
    "family: reward-search",
    "levels: [cartpole]",
    "agent: heuristic",
    "evolver: heuristic",
    "rounds: 1",
    "episodesPerRound: 1",
    "offline: {episodes: 1}",
    "actor: {maxTurns: 3}",
    "concurrency: 1",
    `rewardSearch: {trainSteps: 1024, finishSteps: 2048${rewardSearch ? `, ${rewardSearch}` : ""}}`,
    "",
  ].join("\n");
