import type { CheckpointJudge } from "../../../src/search/p2p-ports.ts";
import { FITNESS_LABEL, fitnessScore } from "../cli/judge-fitness.ts";
import type { RewardTask } from "../task.ts";

/**
 * The fitness judge as the p2p strategy's checkpoint judge, for tasks with F and no model: a checkpoint scores
 * its F against the task's solved threshold (judge-fitness.ts `fitnessScore`: 1 exactly when F reaches it), so
 * the search passes when the task is solved. It measures F, never an intent's words; its label says so.
 */
export const fitnessCheckpointJudge = (): CheckpointJudge<RewardTask> => ({
  label: FITNESS_LABEL,
  passAt: 1,
  judge: async (task, cp) => {
    if (cp.fitness === null) return { score: 0, detail: "no F at this checkpoint" };
    const score = fitnessScore(cp.fitness, task.fitness);
    const seeds = cp.perSeed ? `; per seed ${cp.perSeed.map((f) => Number(f.toPrecision(4))).join(", ")}` : "";
    return { score, detail: `F ${Number(cp.fitness.toPrecision(4))} (solved at ${task.fitness.solved})${seeds}` };
  },
});
