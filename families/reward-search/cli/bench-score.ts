import type { FinalScore } from "../../../src/store/final-scores.ts";
import type { BenchScore, BenchSeed } from "../../../src/report/compare/strategy-bench.ts";

const num = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null);

/**
 * One run's final score of a task as the bench tables it: the per-seed figures of the final scoring protocol
 * (final-scores.json schema 2, detail.perSeed); a schema-1 file's single training stands as one measurement.
 */
export const benchScoreOf = (f: FinalScore, strategy: string, run: number, wallS: number): BenchScore => {
  const d = f.detail;
  const perSeed: BenchSeed[] = Array.isArray(d.perSeed)
    ? (d.perSeed as Record<string, unknown>[]).map((p) => ({
        trainSeed: num(p.trainSeed) ?? 0,
        score: num(p.score),
        fitness: num(p.fitness),
        sparse: num(p.sparse),
        human: num(p.human),
      }))
    : [{ trainSeed: num(d.trainSeed) ?? 0, score: f.score, fitness: num(d.fitness), sparse: num(d.sparse), human: num(d.human) }];
  return {
    strategy,
    run,
    task: f.level,
    score: f.score,
    fitness: num(d.fitness),
    sparse: num(d.sparse),
    human: num(d.human),
    spent: f.spent,
    envSteps: num(d.envSteps),
    wallS,
    perSeed,
  };
};
