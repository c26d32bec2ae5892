import type { Evaluator } from "../../../src/search/evaluator.ts";
import type { Proposer, ProposeContext } from "../../../src/search/proposer.ts";
import type { TrainerPool } from "../trainer/pool.ts";
import { reflection, trainingError } from "../tools/feedback.ts";
import type { RewardTask, TaskInstance } from "../task.ts";

/** The search ports as reward search instantiates them: a task and its instance. */
export type RewardProposer = Proposer<RewardTask, TaskInstance>;
export type RewardProposeContext = ProposeContext<RewardTask, TaskInstance>;
export type RewardEvaluator = Evaluator<RewardTask, TaskInstance>;

/**
 * The reward-search evaluator: a candidate's code is the reward of one PPO training of `steps` env steps on the
 * trainer pool, with the instance's training seed, scored by the final policy's F on its evaluation
 * seeds (the search's selection seeds, docs/spec/reward-search.md §7); the feedback is Eureka's reward reflection of the training, or its error as the model sees it.
 */
export const trainerEvaluator = (trainer: Pick<TrainerPool, "train">, steps: number): RewardEvaluator => ({
  evaluate: async ({ task, instance, code, method, index }) => {
    const out = await trainer.train(
      { task: task.id, instance, reward: code, steps, seed: instance.trainSeed, evalSeeds: instance.evalSeeds, ppo: task.training.ppo },
      { label: `${method}-${task.id}-s${instance.seed}-c${index}` },
    );
    if (out.kind === "error") return { outcome: { kind: "error", error: out.error.kind, message: out.error.message }, feedback: trainingError(out.error) };
    const r = out.result;
    return {
      outcome: { kind: "result", fitness: r.final.fitness, perSeed: r.final.perSeed, bestCheckpoint: r.bestCheckpoint, steps: r.steps, cached: out.cached },
      feedback: reflection(r, task.fitness.solved),
    };
  },
});
