import type { TaskPrompt } from "../../src/family/task-env.ts";
import { actionText, CODE_TIPS } from "./reward-tips.ts";
import type { RewardTask, TaskInstance } from "./task.ts";

const steps = (n: number) => n.toLocaleString("en-US");

/**
 * How an episode ends, said as tools/train_policy.ts, tools/finish.ts and tools/session.ts do it. Without a share
 * of a run's budget: train_policy trains the quick budget unless asked, a full-budget run that solves the task
 * auto-finishes, finish trains the full budget. Under a share (a rounds run with search.budget) every training,
 * finish included, trains the quick budget, so auto-finish can only fire when the quick budget is the full one,
 * and then only with the share's last training; trainings left unsent pass to the later rounds' episodes.
 */
const endRules = (task: RewardTask, budgets: { train: number; finish: number }, maxTrainings: number | undefined): string[] => {
  const solved = task.fitness.solved;
  if (maxTrainings === undefined) {
    return [
      `train_policy trains ${steps(budgets.train)} env steps unless you give steps (at most the full budget, ${steps(budgets.finish)}).`,
      `If a train_policy run at the full budget (${steps(budgets.finish)} steps) reaches F ≥ ${solved}, the episode ends at once as a success with that code.`,
      `Call finish(code) to commit an answer: it trains the code once more at the full budget, ${steps(budgets.finish)} steps, and F of that policy on the evaluation seeds is the episode's score. If the turns run out first, the episode fails.`,
    ];
  }
  const plural = maxTrainings === 1 ? "" : "s";
  return [
    `This run gives every method the same trainings: this episode may send ${maxTrainings} training${plural}, finish included, and each one, train_policy and finish alike, trains ${steps(budgets.train)} env steps whatever steps you give.`,
    budgets.train >= budgets.finish
      ? `If your last training (training ${maxTrainings} of ${maxTrainings}) is a train_policy run that reaches F ≥ ${solved}, the episode ends at once as a success with that code; an earlier one that does does not end it.`
      : `A train_policy run that reaches F ≥ ${solved} does not end the episode: commit its code with finish.`,
    `Call finish(code) to commit an answer: it trains the code once more (${steps(budgets.train)} steps) and F of that policy on the evaluation seeds is the episode's score, so keep one training for it. If the turns or the trainings run out before a finish, the episode fails.`,
    "Trainings this episode does not send are not lost: the episodes of later rounds get them.",
  ];
};

/** The reward-search part of the actor's prompt: the environment as a user would paste it, the contract of the code, how an episode ends. */
export const rewardSearchPrompt = (
  task: RewardTask,
  instance: TaskInstance,
  budgets: { train: number; finish: number },
  maxTurns: number,
  actionKind: "discrete" | "continuous",
  maxTrainings?: number,
): TaskPrompt => ({
  noun: "task",
  role: "You are an experimentalist designing a reward function for reinforcement learning, testing each design by training a policy with PPO.",
  sections: [
    `## The task: ${task.id} (seed ${instance.seed})`,
    task.description,
    `Fitness F: ${task.fitness.describe}; range [${task.fitness.range.join(", ")}]; the task counts as solved at F ≥ ${task.fitness.solved}, measured on evaluation seeds other than the training seed, with the final policy.`,
    "",
    "## Your action",
    "Write JavaScript defining `function reward(obs, action, nextObs, info)` that returns `{ total: number, components: { name: number, ... } }`.",
    `obs and nextObs have the fields ${task.observation.join(", ")}; info has ${task.info.join(", ")}; ${actionText(task, actionKind)}.`,
    "PPO maximises `total`; `components` are reported back to you per training (name each term of your reward). The code runs sandboxed: no require, no I/O, a CPU limit per call; an error or a NaN is reported with its line.",
    "",
    CODE_TIPS,
  ],
  rules: endRules(task, budgets, maxTrainings),
  task: `Design a reward for ${task.id} seed ${instance.seed} so that PPO reaches F ≥ ${task.fitness.solved}. You have ${maxTurns} turns; start experimenting.`,
});
