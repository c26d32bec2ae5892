import type { ToolProgress } from "../../../src/family/task-env.ts";
import type { RewardTask, TaskInstance } from "../task.ts";
import type { PoolOutcome, PoolTrainOptions, TrainerPool } from "../trainer/pool.ts";

/** What the reward-search tools of one episode share: the task instance, the trainer and the budgets. */
export interface RewardSession {
  task: RewardTask;
  instance: TaskInstance;
  trainer: Pick<TrainerPool, "train">;
  budgets: { train: number; finish: number };
  checkTransitions: number;
  /** Trainings this episode asked for (a cached one included). */
  trainings: number;
  /** Trainings this episode may ask for (its share of search.budget in a rounds run); unset: the turn budget alone limits them. */
  maxTrainings?: number;
}

/** Trainings the episode may still send: its share less what it sent; Infinity without a share. */
export const trainingsLeft = (s: RewardSession): number => (s.maxTrainings === undefined ? Infinity : s.maxTrainings - s.trainings);

/**
 * Env steps of a training asked for with `asked` steps. Under a share of a run's budget every training —
 * train_policy and finish alike — is the quick budget, so a rounds run trains exactly what a search of the same
 * budget trains (trainings × steps, docs/spec/reward-search.md §8.1); without a share, what was asked.
 */
export const stepsOf = (s: RewardSession, asked: number): number => (s.maxTrainings === undefined ? asked : s.budgets.train);

/** One training of `code` on the instance (training seed, evaluation seeds), with progress. */
export const train = async (s: RewardSession, code: string, steps: number, label: string, onProgress?: (p: ToolProgress) => void): Promise<PoolOutcome> => {
  if (trainingsLeft(s) <= 0) {
    // Not sent: the run's equal-budget comparison (docs/spec/reward-search.md §8.1) counts every training the trainer runs.
    const message = `this episode's share of the run's training budget (${s.maxTrainings} training${s.maxTrainings === 1 ? "" : "s"}) is spent; nothing was trained`;
    return { kind: "error", error: { kind: "budget_exceeded", message }, cached: false, jobDir: null };
  }
  s.trainings++;
  const opts: PoolTrainOptions = {
    label: `${s.task.id}-s${s.instance.seed}-${label}`,
    ...(onProgress
      ? { onProgress: (p) => onProgress({ tool: label, done: p.steps, total: steps, ...(p.fitness === null ? {} : { note: `F ${p.fitness.toFixed(1)}` }) }) }
      : {}),
  };
  return s.trainer.train(
    { task: s.task.id, instance: s.instance, reward: code, steps, seed: s.instance.trainSeed, evalSeeds: s.instance.evalSeeds, ppo: s.task.training.ppo },
    opts,
  );
};
