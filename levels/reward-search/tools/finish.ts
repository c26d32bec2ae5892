import { z } from "zod";
import { ModelOutputError } from "../../../src/errors.ts";
import { defineRewardTool } from "./reward-tool.ts";
import { reflection, trainingError } from "./feedback.ts";
import { stepsOf, train } from "./session.ts";

export default defineRewardTool({
  name: "finish",
  description:
    "Commit your reward code: it is trained once more (at the full budget, or at the run's equal per-training budget when the run sets one) and scored by F of " +
    "that final policy on evaluation seeds other than the training seed; the episode ends with that result. Commit a design you have seen train well.",
  input: z.object({ code: z.string().min(1).describe("the reward code to commit") }),
  run: async (s, a, onProgress) => {
    const out = await train(s, a.code, stepsOf(s, s.budgets.finish), "finish", onProgress);
    // Broken code is not committed: the model may fix it and call finish again (as an invalid placement is not).
    if (out.kind === "error")
      throw new ModelOutputError(`${trainingError(out.error).replace(/^ERROR:? ?/, "")}; nothing was committed: fix the code and call finish again`);
    const r = out.result;
    const success = r.final.fitness >= s.task.fitness.solved;
    return {
      result: { committed: true, success, fitness: r.final.fitness, bestCheckpoint: r.bestCheckpoint },
      observation: `Committed: ${success ? "SOLVED" : "NOT SOLVED"} with F ${r.final.fitness.toFixed(2)} (needs ≥ ${s.task.fitness.solved}).\n${reflection(r, s.task.fitness.solved)}`,
      ends: { reason: "finish", success, action: { code: a.code, policy: r.policy }, score: r.final.fitness },
    };
  },
});
