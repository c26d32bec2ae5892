import type { TaskPrompt } from "../../src/family/task-env.ts";
import type { RewardTask, TaskInstance } from "./task.ts";

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
    `obs and nextObs have the fields ${task.observation.join(", ")}; info has ${task.info.join(", ")}; action is ${actionKind === "discrete" ? `the index of the chosen action (${task.actionNames.map((n, i) => `${i} = ${n}`).join(", ")})` : `an object with ${task.actionNames.join(", ")}`}.`,
    "PPO maximises `total`; `components` are reported back to you per training (name each term of your reward). The code runs sandboxed: no require, no I/O, a CPU limit per call; an error or a NaN is reported with its line.",
  ],
  rules: [
    `train_policy trains ${budgets.train.toLocaleString("en-US")} env steps unless you give steps; the full budget is ${budgets.finish.toLocaleString("en-US")} steps.`,
    `If a train_policy run at the full budget reaches F ≥ ${task.fitness.solved}${maxTrainings === undefined ? "" : " with your last training"}, the episode ends at once as a success with that code.`,
    `Call finish(code) to commit an answer; it is scored by a full-budget training and F on its evaluation seeds. If the turns run out, the episode fails.`,
    ...(maxTrainings === undefined
      ? []
      : [
          `You have ${maxTrainings} training(s) in this episode, finish included: spend them all (trainings you leave pass to later episodes), and keep one for finish.`,
        ]),
  ],
  task: `Design a reward for ${task.id} seed ${instance.seed} so that PPO reaches F ≥ ${task.fitness.solved}. You have ${maxTurns} turns; start experimenting.`,
});
