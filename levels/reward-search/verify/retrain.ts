import type { Divergence } from "../../../src/verify/outcome.ts";
import { createRng } from "../../../src/util/rng.ts";
import type { RewardSearchConfig } from "../config.ts";
import { retrainPool, type RecordedTraining } from "./replay-pool.ts";

/** `count` distinct trainings of those answered, drawn without replacement by `seed`. */
const draw = (used: readonly RecordedTraining[], count: number, seed: number): RecordedTraining[] => {
  const distinct = [...new Map(used.map((u) => [u.key, u] as const)).values()];
  const rng = createRng(seed);
  for (let i = distinct.length - 1; i > 0; i--) {
    const j = rng.integers(0, i + 1);
    [distinct[i], distinct[j]] = [distinct[j]!, distinct[i]!];
  }
  return distinct.slice(0, count);
};

const fitnessOf = (o: RecordedTraining["outcome"]): string => (o.kind === "result" ? String(o.result.final.fitness) : `error ${o.error.kind}`);

/**
 * Trains some recorded trainings again (docs/guides/verify.md) and compares their F: exactly for the built-in
 * trainer, whose trainings are deterministic by seed; within `tolerance` for the reader's own trainer command.
 * The run's trainer command is never run (docs/security.md).
 */
export const retrainSome = async (
  c: RewardSearchConfig,
  used: readonly RecordedTraining[],
  o: { count: number; seed: number; tolerance?: number; trainerCommand?: readonly string[]; jobsDir: string; log: (line: string) => void },
): Promise<{ checked: number; divergence?: Divergence }> => {
  const picked = draw(used, o.count, o.seed);
  const tolerance = o.tolerance ?? (o.trainerCommand ? 0.05 : 0);
  const trainer = o.trainerCommand ? `your trainer command (--trainer-command)` : "the built-in trainer";
  o.log(
    `retraining ${picked.length} of ${new Set(used.map((u) => u.key)).size} recorded trainings (seed ${o.seed}) with ${trainer}; F must match ${tolerance === 0 ? "exactly" : `within ${tolerance}`}`,
  );
  const pool = retrainPool(c, o.jobsDir, o.trainerCommand);
  let checked = 0;
  try {
    for (const t of picked) {
      const out = await pool.train(t.job, { label: `verify-${t.job.task}` });
      const what = `training of ${t.job.task} (seed ${t.job.seed}, ${t.job.steps} steps, cache key ${t.key.slice(0, 12)})`;
      const same =
        t.outcome.kind === "result"
          ? out.kind === "result" && Math.abs(out.result.final.fitness - t.outcome.result.final.fitness) <= tolerance
          : out.kind === "error" && out.error.kind === t.outcome.error.kind;
      o.log(`  ${what}: recorded F ${fitnessOf(t.outcome)}, retrained ${fitnessOf(out)}`);
      if (!same) return { checked, divergence: { what, field: "F (final fitness)", recorded: fitnessOf(t.outcome), replayed: fitnessOf(out) } };
      checked++;
    }
  } finally {
    await pool.close();
  }
  return { checked };
};
