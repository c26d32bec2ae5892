import { z } from "zod";
import { defineRewardTool } from "./reward-tool.ts";
import { stepsOf } from "./session.ts";

export default defineRewardTool({
  name: "describe_task",
  description:
    "The environment as its author describes it: observation, action and info fields with units, termination, time limit, the fitness F and the budgets.",
  input: z.object({}),
  run: async (s) => {
    const { task, instance, budgets } = s;
    const params = Object.entries(instance.params)
      .map(([k, v]) => `${k} ${v}`)
      .join(", ");
    return {
      result: { task: task.id, seed: instance.seed, params: instance.params, fitness: task.fitness, budgets },
      observation: [
        `${task.title} (seed ${instance.seed}; this seed's parameters: ${params || "defaults"}).`,
        task.description,
        `F: ${task.fitness.describe}; range [${task.fitness.range.join(", ")}]; solved at ≥ ${task.fitness.solved}.`,
        s.maxTrainings === undefined
          ? `Budgets: train_policy ${budgets.train.toLocaleString("en-US")} steps by default; finish trains ${budgets.finish.toLocaleString("en-US")} steps and scores F on evaluation seeds other than the training seed.`
          : `Budgets: ${s.maxTrainings} training(s) in this episode, finish included, each of ${stepsOf(s, budgets.finish).toLocaleString("en-US")} steps (the run's equal budget); finish scores F on evaluation seeds other than the training seed.`,
      ].join("\n"),
    };
  },
});
