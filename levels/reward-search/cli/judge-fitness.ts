/**
 * The fitness judge (docs/guides/judging.md, "hexa judge"): on a task with a fitness F and no model, an episode is
 * scored by its F against the task's solved threshold. It measures the task's F, never the words of an intent,
 * and everything that prints or stores its score carries FITNESS_LABEL.
 */
import type { RewardTask } from "../task.ts";
import type { TrajectoryRecord } from "../trajectory/record.ts";

export const FITNESS_LABEL = "fitness judge (F against the task's solved threshold), not a judgment of the intent";

/** The F that scores 0 (fitnessScore). */
export const fitnessBase = (fitness: RewardTask["fitness"]): number => (fitness.solved > 0 && fitness.range[0] <= 0 ? 0 : fitness.range[0]);

/**
 * F scaled to [0, 1]: (F − b) / (solved − b), clamped, where b is 0 when the task's range reaches 0 below a
 * positive solved threshold (no progress scores 0) and otherwise the low end of F's range. 1 exactly when F
 * reaches the solved threshold.
 */
export const fitnessScore = (f: number, fitness: RewardTask["fitness"]): number => {
  const base = fitnessBase(fitness);
  if (f >= fitness.solved) return 1;
  return Math.min(1, Math.max(0, (f - base) / (fitness.solved - base)));
};

/** F of a recorded episode: the sum of its per-step `fitness` term (trajectory/recorder.ts). */
export const episodeFitness = (r: TrajectoryRecord): number => {
  const k = r.header.terms.indexOf("fitness");
  const width = r.header.terms.length;
  let f = 0;
  for (let t = 0; t < r.steps; t++) f += r.columns.terms[t * width + k]!;
  return f;
};
