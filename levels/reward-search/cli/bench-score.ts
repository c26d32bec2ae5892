import { z } from "zod";
import type { FinalScore } from "../../../src/store/final-scores.ts";
import type { BenchDiff, BenchRow } from "../../../src/report/compare/strategy-bench.ts";
import { bootstrapMean, MIN_COMPARED_UNITS, mean } from "../../../src/util/stats.ts";
import { finalFigures, type SeedF } from "../search/final-figures.ts";
import { budgetText } from "../search/final-protocol.ts";

const num = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null);
const nullableNumber = z.number().nullable();

/** One measurement of a final score: one fresh training seed of one run, with the F of the three rewards. */
const BenchSeed = z.object({ seed: z.number(), fitness: nullableNumber, sparse: nullableNumber, human: nullableNumber });
type BenchSeed = z.infer<typeof BenchSeed>;

/**
 * One run's final score of one task as the strategy bench keeps it (docs/benchmarks/data/): small, no policy. The
 * run is the unit every comparison resamples (docs/spec/method.md §8); its fresh seeds retrain one reward and are
 * averaged first (`mean`).
 */
export const BenchScore = z.strictObject({
  strategy: z.string(),
  /** The run's index; runs of one index search the same task instance in every strategy. */
  run: z.number().int().min(0),
  task: z.string(),
  spent: z.number().int().min(0),
  /** Env steps of the run's trainings of the task (trainings × steps), when recorded. */
  envSteps: nullableNumber,
  /** Env steps of each final training, and the task's scored budget, when recorded (schema 3). */
  steps: nullableNumber,
  scoredSteps: nullableNumber,
  /** The run's wall time in seconds; null when not recorded. */
  wallS: nullableNumber,
  /** The commit of the hexa that made the run; null when not recorded. */
  commit: z.string().nullable(),
  /** The run's trainings and how many of them a trainer cache answered; null when not recorded. */
  cache: z.object({ trainings: z.number().int().min(0), cached: z.number().int().min(0) }).nullable(),
  /** F of the final, sparse and human rewards, each averaged over the run's fresh seeds where known. */
  mean: BenchSeed.omit({ seed: true }),
  /** Fresh seeds averaged in `mean`. */
  seeds: z.number().int().min(0),
  /** Every fresh seed's F values; absent where only the run's means survive. */
  perSeed: z.array(BenchSeed).optional(),
});
export type BenchScore = z.infer<typeof BenchScore>;

const known = (xs: readonly (number | null)[]) => xs.filter((x): x is number => x !== null);
const meanOf = (xs: readonly (number | null)[]): number | null => (known(xs).length ? mean(known(xs)) : null);

/** The run's F of each reward averaged over its fresh seeds. */
export const runMeanOf = (perSeed: readonly SeedF[]): SeedF => ({
  fitness: meanOf(perSeed.map((p) => p.fitness)),
  sparse: meanOf(perSeed.map((p) => p.sparse)),
  human: meanOf(perSeed.map((p) => p.human)),
});

/** Where a run came from: the commit of the hexa that made it, its wall time, and its trainings a cache answered. */
export type BenchProvenance = Pick<BenchScore, "wallS" | "commit" | "cache">;

/**
 * One run's final score of a task as the bench tables it: the per-seed F of the final, sparse and human rewards
 * (schema 3's `perSeed`, schema 2's `detail.perSeed` as lifted on read); a schema-1 file's single training stands
 * as one measurement.
 */
export const benchScoreOf = (f: FinalScore, strategy: string, run: number, from: BenchProvenance): BenchScore => {
  const d = f.detail;
  const seedOf = (p: Record<string, unknown>): BenchSeed => ({ seed: num(p.seed) ?? 0, fitness: num(p.fitness), sparse: num(p.sparse), human: num(p.human) });
  const perSeed = f.perSeed.length ? f.perSeed.map(seedOf) : [seedOf({ ...d, seed: d.trainSeed })];
  return {
    strategy,
    run,
    task: f.level,
    spent: f.spent,
    envSteps: num(d.envSteps),
    steps: num(d.steps),
    scoredSteps: num(d.scoredSteps),
    ...from,
    mean: runMeanOf(perSeed),
    seeds: perSeed.length,
    perSeed,
  };
};

/** A run whose final reward scored exactly the sparse reward's F: a failed or missing final reward is scored as the sparse one. */
const equalsSparse = (s: BenchScore) => s.mean.fitness !== null && s.mean.fitness === s.mean.sparse;

/** Wall time of the runs that trained everything themselves; runs a cache answered, and runs without a record, are counted apart. */
const wallOf = (runs: readonly BenchScore[]): BenchRow["wall"] => {
  const trained = runs.filter((s) => s.cache !== null && s.cache.cached === 0 && s.wallS !== null);
  return {
    meanS: trained.length ? mean(trained.map((s) => s.wallS!)) : null,
    trained: trained.length,
    cacheHit: runs.filter((s) => s.cache !== null && s.cache.cached > 0).length,
    unknown: runs.filter((s) => s.cache === null).length,
  };
};

/**
 * Per task: the sparse and human rows (those rewards trained on the same fresh seeds), then a row per strategy;
 * each with the figures of final-figures.ts over runs (each run's seeds averaged first: the run is what varies
 * between searches), F's mean per run, and the runs whose F equals the sparse reward's exactly.
 */
export const benchRows = (scores: readonly BenchScore[], strategies: readonly string[], tasks: readonly string[]): BenchRow[] =>
  tasks.flatMap((task) => {
    const runsOf = (strategy: string) => scores.filter((s) => s.task === task && s.strategy === strategy).sort((a, b) => a.run - b.run);
    // The references are the same trainings for every strategy of a run (one instance, the same fresh seeds, cached).
    const ref = runsOf(strategies[0]!);
    const row = (
      name: string,
      runs: readonly BenchScore[],
      f: (m: SeedF) => number | null,
      own: Pick<BenchRow, "trained" | "envSteps" | "wall" | "asSparse">,
    ): BenchRow => {
      const units = runs.map((s) => ({ fitness: f(s.mean), sparse: s.mean.sparse, human: s.mean.human }));
      const { fitness, vsSparse, vsHuman, normalised } = finalFigures(units, { unit: "run", minN: MIN_COMPARED_UNITS });
      return { task, row: name, figures: [fitness, vsSparse, vsHuman, normalised], perRun: units.map((u) => u.fitness), ...own };
    };
    const none = { meanS: null, trained: 0, cacheHit: 0, unknown: 0 };
    const reference = (name: "sparse" | "human") =>
      row(name, ref, (m) => m[name], { trained: ref.map((s) => s.seeds), envSteps: ref.map(() => null), wall: none, asSparse: ref.map(() => false) });
    return [
      reference("sparse"),
      reference("human"),
      ...strategies.map((strategy) => {
        const mine = runsOf(strategy);
        return row(strategy, mine, (m) => m.fitness, {
          trained: mine.map((s) => s.spent),
          envSteps: mine.map((s) => s.envSteps),
          wall: wallOf(mine),
          asSparse: mine.map(equalsSparse),
        });
      }),
    ];
  });

/**
 * Every pair of strategies' difference of F per task, paired by run (same instance, same fresh seeds) and bootstrapped
 * over runs, each run's F averaged over its seeds first; fewer than MIN_COMPARED_UNITS runs give no interval.
 */
export const benchDiffs = (scores: readonly BenchScore[], strategies: readonly string[], tasks: readonly string[]): BenchDiff[] =>
  tasks.flatMap((task) => {
    const byRun = (strategy: string) =>
      new Map(scores.filter((s) => s.task === task && s.strategy === strategy && s.mean.fitness !== null).map((s) => [s.run, s.mean.fitness!] as const));
    return strategies.flatMap((a, i) =>
      strategies.slice(i + 1).map((b): BenchDiff => {
        const [ma, mb] = [byRun(a), byRun(b)];
        const diffs = [...ma].filter(([r]) => mb.has(r)).map(([r, v]) => v - mb.get(r)!);
        return { task, a, b, interval: bootstrapMean(diffs, { seed: 1, unit: "run", minN: MIN_COMPARED_UNITS }) };
      }),
    );
  });

/** Per task, the budget its final trainings ran at against its scored budget (from the first score that records it). */
export const benchBudgets = (scores: readonly BenchScore[], tasks: readonly string[]): string[] =>
  tasks.flatMap((task) => {
    const s = scores.find((x) => x.task === task && x.steps !== null && x.scoredSteps !== null);
    return s ? [`${task}: final trainings ${budgetText(s.steps!, s.scoredSteps!)}`] : [];
  });
