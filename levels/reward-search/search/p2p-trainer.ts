import type { CheckpointPoint, Diagnostics, HpSpace, HpTrainer } from "../../../src/search/p2p-ports.ts";
import { PpoConfig, type RewardTask, type TaskInstance } from "../task.ts";
import type { JobResult } from "../trainer/client.ts";
import type { LossSummary } from "../trainer/loss-summary.ts";
import type { TrainerPool } from "../trainer/pool.ts";
import { reflection, trainingError } from "../tools/feedback.ts";

/**
 * The p2p strategy's ports on reward search (docs/spec/reward-search.md §8.6): a training is one PPO job on the
 * trainer pool (local processes or the workers behind it) with the task's PPO settings overridden by the
 * configuration's hyper-parameters; its checkpoints are the trainer's checkpoint evaluations nearest 25, 50, 75
 * and 100 % of its steps (the greedy policy's F on the evaluation seeds; the last is the final policy, with its
 * per-seed values); its diagnostics are the pool's summary of its PPO losses (the mean over the last quarter of
 * its updates; none when the trainer reports none), kept in the trainer cache with its result, so a training the
 * cache answers reports the same as one trained now.
 */

/** The PPO settings a reviser may change, each within these bounds; the rest (env count, rollout, network) stay the task's. */
const PPO_HP_BOUNDS: Readonly<Record<string, readonly [number, number]>> = {
  learningRate: [1e-5, 3e-3],
  entCoef: [0, 0.05],
  clipCoef: [0.05, 0.4],
  gamma: [0.9, 0.999],
  gaeLambda: [0.8, 0.99],
  vfCoef: [0.1, 1],
  updateEpochs: [1, 20],
  maxGradNorm: [0.1, 5],
};

/** A task's HP space: the bounds above, starting at the task's own PPO settings (clamped into them). */
export const ppoHpSpace = (task: RewardTask): HpSpace => {
  const ppo = PpoConfig.parse(task.training.ppo);
  const base = Object.fromEntries(Object.entries(PPO_HP_BOUNDS).map(([k, [lo, hi]]) => [k, Math.min(hi, Math.max(lo, ppo[k as keyof PpoConfig] as number))]));
  return { bounds: PPO_HP_BOUNDS, base };
};

const CHECKPOINT_FRACTIONS = [0.25, 0.5, 0.75, 1] as const;

/** The trainer's checkpoint evaluations nearest each fraction (each at most once), the last with the final policy's per-seed F; each with its kept policy, if any. */
export const checkpointsOf = (
  r: Pick<JobResult, "fitnessCurve" | "final" | "steps"> & Partial<Pick<JobResult, "checkpointPolicies" | "policy">>,
): CheckpointPoint[] => {
  const curve = r.fitnessCurve;
  const picked = new Set<number>();
  for (const f of CHECKPOINT_FRACTIONS.slice(0, -1)) {
    let best = -1;
    curve.forEach((p, i) => {
      if (i < curve.length - 1 && (best < 0 || Math.abs(p.step - f * r.steps) < Math.abs(curve[best]!.step - f * r.steps))) best = i;
    });
    if (best >= 0) picked.add(best);
  }
  const fraction = (step: number) => (r.steps > 0 ? Math.min(1, step / r.steps) : 1);
  const kept = r.checkpointPolicies;
  const policyAt = (step: number) => {
    const p = kept?.find((k) => k.step === step)?.policy;
    return p === undefined ? {} : { policy: p };
  };
  const early = [...picked]
    .sort((a, b) => a - b)
    .map((i) => ({ step: curve[i]!.step, fraction: fraction(curve[i]!.step), fitness: curve[i]!.fitness, ...policyAt(curve[i]!.step) }));
  const last = kept && r.policy ? { policy: r.policy } : {};
  return [...early, { step: r.steps, fraction: 1, fitness: r.final.fitness, perSeed: r.final.perSeed.map((p) => p.fitness), ...last }];
};

/** The reviser's diagnostics of a training's loss summary; null when the trainer reported no losses. */
export const diagnosticsOf = (losses: LossSummary | null | undefined): Diagnostics | null =>
  losses ? { approxKl: losses.approxKl, clipFrac: losses.clipFrac, entropy: losses.entropy, explainedVariance: losses.explainedVariance } : null;

const lastTerms = (components: JobResult["components"]): Record<string, number> =>
  Object.fromEntries(Object.entries(components).map(([k, xs]) => [k, Math.abs(xs.at(-1)?.mean ?? 0)]));

/** `keepPolicies`: the trainer keeps each checkpoint's policy and every checkpoint names its file (a judge that rolls it out). */
export const p2pTrainer = (pool: Pick<TrainerPool, "train">, steps: number, keepPolicies = false): HpTrainer<RewardTask, TaskInstance> => ({
  train: async ({ task, instance, code, hp, seed, label }) => {
    const keep = keepPolicies ? { keepPolicies: true } : {};
    const out = await pool.train(
      { task: task.id, instance, reward: code, steps, seed, evalSeeds: instance.evalSeeds, ppo: { ...task.training.ppo, ...hp }, ...keep },
      { label, needsLosses: true },
    );
    if (out.kind === "error") return { kind: "error", error: out.error.kind, message: out.error.message, feedback: trainingError(out.error) };
    const r = out.result;
    return {
      kind: "result",
      steps: r.steps,
      checkpoints: checkpointsOf(r),
      diagnostics: diagnosticsOf(out.losses),
      terms: lastTerms(r.components),
      feedback: reflection(r, task.fitness.solved),
      cached: out.cached,
    };
  },
});
