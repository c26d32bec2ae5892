import type { FamilyWords } from "../../agents/family-words.ts";
import { familyConfig, type LevelFamily } from "../../src/loop/family.ts";
import type { RunConfig } from "../../src/loop/run-config.ts";
import { scheduleLevel } from "../../src/loop/schedule.ts";
import { createRng } from "../../src/sim/rng.ts";
import type { TrainerPool } from "../../src/trainer/pool.ts";
import { renderRewardAction, RewardAction } from "./action.ts";
import { budgetsOf, RewardSearchConfig } from "./config.ts";
import { runRewardDesigner } from "./heuristic/designer.ts";
import { designHintsFromBank, evolveRewardHeuristic } from "./heuristic/evolver.ts";
import { synthesiseDesigns } from "./heuristic/synthesiser.ts";
import { getTask, listTasks } from "./index.ts";
import { finalScoresOfRun, searchOfRun, trainingShare } from "./strategies/run-strategy.ts";
import { openRewardEnv, openRewardSession } from "./task-env.ts";

export const REWARD_SEARCH_WORDS: FamilyWords = {
  task: "reward-design task",
  solvesBy: "writing a reward function that PPO trains a policy on",
  numbers: "term weights, thresholds, scales",
  renderAction: (a) => renderRewardAction(a),
};

/** Seeds of a task: any seed generates an instance, so the stream, offline and held-out sets are cut from 0, 1, 2, …. */
const SEEDS = Array.from({ length: 1000 }, (_, i) => i);

const slice = { key: "rewardSearch", schema: RewardSearchConfig };

/**
 * Reward-function search as a level family (issue 10): a level is a task, the action is reward code, the
 * tools check and train it. `trainerFor` builds the trainer pool from the family's config (the CLI passes the
 * process-spawning one); the family keeps one pool per trainer setting and closes them in `close`.
 */
export const rewardSearchFamily = (trainerFor: (c: RewardSearchConfig) => TrainerPool): LevelFamily => {
  const pools = new Map<string, TrainerPool>();
  const poolOf = (config: RunConfig) => {
    const c = familyConfig(config, slice);
    const key = JSON.stringify([c.trainer, c.cacheDir, c.jobsDir]);
    if (!pools.has(key)) pools.set(key, trainerFor(c));
    return { pool: pools.get(key)!, c };
  };
  const sessionRequest = (level: string, seed: number, config: RunConfig, maxTurns: number) => {
    const { pool, c } = poolOf(config);
    // A rounds run with a budget: this episode's share of the task's trainings (issue 13's equal-budget comparison).
    const plan = c.budget === undefined ? undefined : scheduleLevel(config, family, level);
    const share = plan && trainingShare(c.budget!, [...plan.offline, ...plan.rounds.flat()], seed);
    return { task: level, seed, trainer: pool, budgets: budgetsOf(c, getTask(level).training.steps), checkTransitions: c.checkTransitions, maxTurns, ...(share === undefined ? {} : { maxTrainings: share }) };
  };
  const family: LevelFamily = {
    id: "reward-search",
    title: "Reward search: write reward code, train PPO on it, reach the task's fitness",
    listLevels: listTasks,
    checkLevel: (level) => void getTask(level),
    seedsOf: () => SEEDS,
    describe: (level) => getTask(level).description,
    action: RewardAction,
    words: REWARD_SEARCH_WORDS,
    config: slice,
    openEnv: (task, config, maxTurns) => openRewardEnv(sessionRequest(task.level, task.seed, config, maxTurns)),
    playHeuristic: (r) =>
      runRewardDesigner({
        session: openRewardSession(sessionRequest(r.task.level, r.task.seed, r.config, r.config.actor.maxTurns)),
        maxTurns: r.config.actor.maxTurns,
        rng: createRng(r.task.seed + r.config.seed * 1_000_003),
        now: r.now,
        hints: designHintsFromBank(r.shown),
        ...(r.onToolProgress ? { onToolProgress: r.onToolProgress } : {}),
        ...(r.onStep ? { onStep: r.onStep } : {}),
      }),
    evolveHeuristic: (o) => evolveRewardHeuristic(o),
    // As the reward code reads them (obs.x, info.fell): a bare "fell" or "height" in a sentence is an ordinary word.
    objectsOf: (level) => {
      const t = getTask(level);
      return [...t.observation.map((n) => `obs.${n}`), ...t.info.map((n) => `info.${n}`), ...t.actionNames];
    },
    synthesiseHeuristic: (o) => synthesiseDesigns(o),
    searchFor: (config) => {
      const { pool, c } = poolOf(config);
      return searchOfRun(config, c, pool);
    },
    finalScores: (req) => {
      const { pool, c } = poolOf(req.config);
      return finalScoresOfRun(req, c, pool);
    },
    close: async () => {
      await Promise.all([...pools.values()].map((p) => p.close()));
      pools.clear();
    },
  };
  return family;
};
