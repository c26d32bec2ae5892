import type { ToolProgress, ToolResult } from "../../agents/task-env.ts";
import type { RewardTask, TaskInstance } from "../../levels/reward-search/task.ts";
import type { PoolOutcome, PoolTrainOptions, TrainerPool } from "../../src/trainer/pool.ts";

/** What the reward-search tools of one episode share: the task instance, the trainer and the budgets. */
export interface RewardSession {
  task: RewardTask;
  instance: TaskInstance;
  trainer: Pick<TrainerPool, "train">;
  budgets: { train: number; finish: number };
  checkTransitions: number;
  /** Trainings this episode asked for (a cached one included). */
  trainings: number;
}

export type RewardToolOutput = Pick<ToolResult, "observation" | "result" | "ends">;

/** One training of `code` on the instance (training seed, held-out evaluation seeds), with progress. */
export const train = (s: RewardSession, code: string, steps: number, label: string, onProgress?: (p: ToolProgress) => void): Promise<PoolOutcome> => {
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
