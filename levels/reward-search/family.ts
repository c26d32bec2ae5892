import type { FamilyWords } from "../../src/family/family-words.ts";
import { ConfigError } from "../../src/errors.ts";
import type { LevelFamily, Task } from "../../src/family/family.ts";
import type {
  AllowanceRequest,
  ChecksCapability,
  HeuristicPlayRequest,
  HeuristicsCapability,
  LevelPhases,
  RecordsCapability,
  SearchCapability,
} from "../../src/family/capabilities.ts";
import type { EpisodeRecord } from "../../src/store/run-records.ts";
import type { RunConfig } from "../../src/loop/run-config.ts";
import { createRng } from "../../src/util/rng.ts";
import type { TrainerPool } from "./trainer/pool.ts";
import { checkServedTasks } from "./trainer/served-tasks.ts";
import { TrainerPools } from "./trainer/run-pools.ts";
import { renderRewardAction, RewardAction } from "./action.ts";
import { budgetsOf, RewardSearchConfig, upgradeRewardSearch } from "./config.ts";
import { runRewardDesigner } from "./heuristic/designer.ts";
import { designHintsFromBank, evolveRewardHeuristic, RewardBankPayload } from "./heuristic/evolver.ts";
import { synthesiseDesigns } from "./heuristic/synthesiser.ts";
import { getTask, listTasks } from "./tasks/index.ts";
import { finalScoresDue, finalScoresOfRun, searchOfRun, trainingShare, trainingsOf } from "./search/run-strategy.ts";
import { openRewardEnv, openRewardSession } from "./task-env.ts";
import { rewardSearchDrawer } from "./pictures/inspect-draw.ts";
import { rewardSearchEvidence, rewardSearchScene } from "./evidence.ts";
import { remoteEpisodeProblem } from "./worker/episode-check.ts";
import { keepWorkerTrainings, type KeptTrainings, recordingTrainer } from "./worker/kept-trainings.ts";

export const REWARD_SEARCH_WORDS: FamilyWords = {
  task: "reward-design task",
  solvesBy: "writing a reward function that PPO trains a policy on",
  numbers: "term weights, thresholds, scales",
  mechanisms: "concrete reward mechanisms (which term rewards which behaviour, how large it is next to the other terms, what the policy learns to do for it)",
  partialExamples: "a useful term dropped too early, the right term with the wrong scale or sign",
  primitive: { kind: "reward-design principle", example: "a dense term on the distance to the goal gives the policy a gradient before it ever succeeds" },
  names: "the observation fields, info keys and actions",
  cause: "reason in the reward's design (which term led the policy where)",
  verifyBy: "by checking and training it",
  seedsDiffer: "each seed changes the task's physical parameters a little (e.g. pole length, gravity)",
  renderAction: (a) => renderRewardAction(a),
  sceneOf: rewardSearchScene,
  evidenceOf: rewardSearchEvidence,
};

/** Seeds of a task: any seed generates an instance, so the stream, offline and held-out sets are cut from 0, 1, 2, …. */
const SEEDS = Array.from({ length: 1000 }, (_, i) => i);

const slice = { key: "rewardSearch", schema: RewardSearchConfig, upgrade: upgradeRewardSearch };

/** What a reward session of this task is opened with: its pool, budgets and share of the run's trainings. */
const sessionRequest = (pools: TrainerPools, task: Task, config: RunConfig, maxTurns: number, kept?: KeptTrainings) => {
  const { pool, c } = pools.of(config);
  const share = task.allowance === undefined ? {} : { maxTrainings: task.allowance };
  return {
    task: task.level,
    seed: task.seed,
    trainer: kept ? recordingTrainer(pool, kept) : pool,
    budgets: budgetsOf(c, getTask(task.level).training.steps),
    checkTransitions: c.checkTransitions,
    maxTurns,
    ...share,
  };
};

/** The seeds a rounds run plays a task in (the offline seeds it plays, then each round's), and whether a record is one of them. */
const phasesOf = (level: string, p: LevelPhases) => ({
  phases: [p.offline, ...p.rounds],
  played: (e: EpisodeRecord) => e.level === level && (e.phase === "stream" || (e.phase === "offline" && p.offline.includes(e.seed))),
});

/** A rounds run's search.budget must give every episode of every level a training to finish with, and no more per episode than it has turns. */
const checkRoundsBudget = (config: RunConfig, phases: ReadonlyMap<string, LevelPhases>): void => {
  const budget = config.search.budget;
  if (config.method !== "rounds" || budget === undefined) return;
  for (const level of config.levels) {
    const n = phasesOf(level, phases.get(level)!).phases.flat().length;
    if (budget < n) {
      throw new ConfigError(
        `search.budget: ${budget} trainings of ${level} leave some of its ${n} episodes (offline and stream) without the training their finish needs; set at least ${n}, or play fewer episodes`,
      );
    }
    const most = Math.ceil(budget / n);
    if (most > config.actor.maxTurns) {
      throw new ConfigError(
        `search.budget: ${budget} trainings over ${level}'s ${n} episodes is up to ${most} per episode, more than actor.maxTurns ${config.actor.maxTurns} can send (one per turn); raise actor.maxTurns to ${most}, or lower the budget`,
      );
    }
  }
};

/** A rounds run with a budget: this episode's share of the task's trainings (the equal-budget comparison, docs/spec/reward-search.md §8.1). */
const roundsAllowance = ({ config, level, seed, phases: p, earlier }: AllowanceRequest): number | undefined => {
  const budget = config.search.budget;
  if (config.method !== "rounds" || budget === undefined) return undefined;
  const { phases, played } = phasesOf(level, p);
  return trainingShare(
    budget,
    phases,
    seed,
    earlier.filter(played).reduce((n, e) => n + trainingsOf(e.trajectory.steps), 0),
  );
};

/** The names a task's text may speak of, as the reward code reads them (obs.x, info.fell): a bare "fell" or "height" in a sentence is an ordinary word. */
const rewardSearchObjects = (level: string): string[] => {
  const t = getTask(level);
  return [...t.observation.map((n) => `obs.${n}`), ...t.info.map((n) => `info.${n}`), ...t.actionNames];
};

/** The heuristic designer's episode on a session of the task, seeded by the task's and the run's seeds. */
const playDesigner = (pools: TrainerPools, r: HeuristicPlayRequest, kept?: KeptTrainings) =>
  runRewardDesigner({
    session: openRewardSession(sessionRequest(pools, r.task, r.config, r.config.actor.maxTurns, kept)),
    maxTurns: r.config.actor.maxTurns,
    rng: createRng(r.task.seed + r.config.seed * 1_000_003),
    now: r.now,
    hints: designHintsFromBank(r.shown),
    ...(r.onToolProgress ? { onToolProgress: r.onToolProgress } : {}),
    ...(r.onStep ? { onStep: r.onStep } : {}),
  });

/** The heuristic designer, evolver and synthesiser; `kept` (on a worker) notes the designer's trainings. */
const rewardHeuristics = (pools: TrainerPools, kept?: KeptTrainings): HeuristicsCapability => ({
  play: (r) => playDesigner(pools, r, kept),
  evolve: (o) => evolveRewardHeuristic(o),
  synthesise: (o) => synthesiseDesigns(o),
  payload: RewardBankPayload,
});

/** Whole searches (eureka, rf-agent), a rounds run's budget shares and the final figures, on the config's trainer pool. */
const rewardSearching = (pools: TrainerPools): SearchCapability => ({
  searchFor: (config) => {
    const { pool, c } = pools.of(config);
    return searchOfRun(config, c, pool);
  },
  allowanceOf: roundsAllowance,
  finalScores: (req) => {
    const { pool, c } = pools.of(req.config);
    return finalScoresOfRun(req, c, pool, (level) => phasesOf(level, req.phases.get(level)!).played);
  },
  finalScoresDue,
});

const rewardChecks = (pools: TrainerPools): ChecksCapability => ({
  trajectoryProblem: remoteEpisodeProblem,
  objectsOf: rewardSearchObjects,
  checkConfig: checkRoundsBudget,
  // The built-in trainer serves every task of the registry; another one says in its hello what it serves.
  checkStart: async (config) => {
    const { pool, c } = pools.of(config);
    if (c.trainer.command) checkServedTasks(config.levels, await pool.hello());
  },
});

/** The trainer cache entries the run's trainings were answered with, kept in the run (a worker's handed back to the coordinator). */
const rewardRecords = (pools: TrainerPools, family: LevelFamily): RecordsCapability => ({
  openRun: (dir, o) => pools.useRun(dir, o?.keep ?? true),
  recordingEpisode: () => {
    const kept: KeptTrainings = [];
    const played: LevelFamily = {
      ...family,
      openEnv: (task, config, maxTurns) => openRewardEnv(sessionRequest(pools, task, config, maxTurns, kept)),
      heuristics: rewardHeuristics(pools, kept),
    };
    return { family: played, kept: () => kept };
  },
  keepFromWorker: (task, kept) => {
    const dir = pools.keptDir;
    return dir === undefined ? "kept: no run is open to keep the episode's trainings in" : keepWorkerTrainings(dir, task, kept);
  },
});

/**
 * Reward-function search as a level family (docs/spec/reward-search.md §1): a level is a task, the action is reward code, the
 * tools check and train it. `trainerFor` builds the trainer pool from the family's config (the CLI passes the
 * process-spawning one); the family keeps one pool per trainer setting and closes them in `close`.
 */
export const rewardSearchFamily = (trainerFor: (c: RewardSearchConfig) => TrainerPool): LevelFamily => {
  const pools = new TrainerPools(trainerFor, slice);
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
    openEnv: (task, config, maxTurns) => openRewardEnv(sessionRequest(pools, task, config, maxTurns)),
    heuristics: rewardHeuristics(pools),
    search: rewardSearching(pools),
    checks: rewardChecks(pools),
    drawer: rewardSearchDrawer,
    close: () => pools.close(),
  };
  family.records = rewardRecords(pools, family);
  return family;
};
