import { z } from "zod";
import { defineRewardTool } from "./reward-tool.ts";
import { reflection, trainingError } from "./feedback.ts";
import { stepsOf, train, trainingsLeft } from "./session.ts";

export default defineRewardTool({
  name: "train_policy",
  description:
    "Train a policy with PPO on your reward code and report F of the final policy on evaluation seeds other than the training seed, the best checkpoint (labelled), " +
    "every reward component's values over training (mean, min, max), episode lengths, and a reward-hacking alarm. Takes seconds to minutes.",
  input: z.object({
    code: z.string().min(1).describe("JavaScript defining function reward(obs, action, nextObs, info) → { total, components }"),
    steps: z.number().int().min(1).optional().describe("env steps to train (default: the quick budget); at most the full budget"),
  }),
  run: async (s, a, onProgress) => {
    const steps = stepsOf(s, Math.min(a.steps ?? s.budgets.train, s.budgets.finish));
    const out = await train(s, a.code, steps, "train_policy", onProgress);
    if (out.kind === "error") return { result: { error: out.error }, observation: trainingError(out.error) };
    const r = out.result;
    const full = steps >= s.budgets.finish;
    const solved = r.final.fitness >= s.task.fitness.solved;
    const capped = s.maxTrainings === undefined ? `at the full budget ${s.budgets.finish}` : `at ${steps} by the run's equal budget`;
    const head = `${steps !== (a.steps ?? steps) ? `(steps ${capped}) ` : ""}Trained ${r.steps.toLocaleString("en-US")} steps${out.cached ? " (cached: this exact training ran before)" : ""}.`;
    return {
      result: { fitness: r.final.fitness, steps, full, cached: out.cached, bestCheckpoint: r.bestCheckpoint },
      observation: `${head}\n${reflection(r, s.task.fitness.solved)}`,
      // A full-budget training that solves the task is what finish would score: auto-finish (docs/spec/method.md §1.1); under
      // a share of a run's budget only with its last training, the rest being the equal-budget comparison's to spend.
      ...(full && solved && (s.maxTrainings === undefined || trainingsLeft(s) <= 0)
        ? { ends: { reason: "success" as const, success: true, action: { code: a.code, policy: r.policy }, score: r.final.fitness } }
        : {}),
    };
  },
});
