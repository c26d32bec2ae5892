import type { FinalScore } from "../../../src/store/final-scores.ts";
import type { BenchDiff, BenchRow } from "../../../src/report/compare/strategy-bench.ts";
import { bootstrapMean, mean } from "../../../src/util/stats.ts";
import { finalFigures, type SeedF } from "../search/final-figures.ts";
import { budgetText } from "../search/final-protocol.ts";

const num = (v: unknown): number | null => (typeof v === "number" && Number.isFinite(v) ? v : null);

/** One measurement of a final score: one fresh training seed of one run, with the F of the three rewards. */
type BenchSeed = SeedF & { seed: number };

/** One run's final score of one task (final-scores.json), with the run's strategy. */
export interface BenchScore {
  strategy: string;
  /** The run's index; runs of one index search the same task instance in every strategy. */
  run: number;
  task: string;
  spent: number;
  /** Env steps of the run's trainings of the task (trainings × steps), when recorded. */
  envSteps: number | null;
  /** Env steps of each final training, and the task's scored budget, when recorded (schema 3). */
  steps: number | null;
  scoredSteps: number | null;
  wallS: number;
  /** Every fresh training seed's F values; a schema-1 file's single training stands as one. */
  perSeed: BenchSeed[];
}

/**
 * One run's final score of a task as the bench tables it: the per-seed F of the final, sparse and human rewards
 * (schema 3's `perSeed`, schema 2's `detail.perSeed` as lifted on read); a schema-1 file's single training stands
 * as one measurement.
 */
export const benchScoreOf = (f: FinalScore, strategy: string, run: number, wallS: number): BenchScore => {
  const d = f.detail;
  const seedOf = (p: Record<string, unknown>): BenchSeed => ({ seed: num(p.seed) ?? 0, fitness: num(p.fitness), sparse: num(p.sparse), human: num(p.human) });
  const perSeed = f.perSeed.length ? f.perSeed.map(seedOf) : [seedOf({ ...d, seed: d.trainSeed })];
  return { strategy, run, task: f.level, spent: f.spent, envSteps: num(d.envSteps), steps: num(d.steps), scoredSteps: num(d.scoredSteps), wallS, perSeed };
};

const known = (xs: readonly (number | null)[]) => xs.filter((x): x is number => x !== null);
const runMean = (xs: readonly (number | null)[]): number | null => (known(xs).length ? mean(known(xs)) : null);

/**
 * Per task: the sparse and human rows (those rewards trained on the same fresh seeds), then a row per strategy;
 * each with F, its paired differences from the sparse and human rewards and the normalised score of
 * final-figures.ts over every (run, fresh seed) measurement, and F's mean per run.
 */
export const benchRows = (scores: readonly BenchScore[], strategies: readonly string[], tasks: readonly string[]): BenchRow[] =>
  tasks.flatMap((task) => {
    const runsOf = (strategy: string) => scores.filter((s) => s.task === task && s.strategy === strategy).sort((a, b) => a.run - b.run);
    // The references are the same trainings for every strategy of a run (one instance, the same fresh seeds, cached).
    const ref = runsOf(strategies[0]!);
    const row = (
      name: string,
      runs: readonly BenchScore[],
      f: (p: BenchSeed) => number | null,
      own: Pick<BenchRow, "trained" | "envSteps" | "wallS">,
    ): BenchRow => {
      const seeds = runs.flatMap((s) => s.perSeed.map((p) => ({ fitness: f(p), sparse: p.sparse, human: p.human })));
      const { fitness, vsSparse, vsHuman, normalised } = finalFigures(seeds);
      return { task, row: name, figures: [fitness, vsSparse, vsHuman, normalised], perRun: runs.map((s) => runMean(s.perSeed.map(f))), ...own };
    };
    const reference = (name: "sparse" | "human") =>
      row(name, ref, (p) => p[name], { trained: ref.map((s) => s.perSeed.length), envSteps: ref.map(() => null), wallS: NaN });
    return [
      reference("sparse"),
      reference("human"),
      ...strategies.map((strategy) => {
        const mine = runsOf(strategy);
        return row(strategy, mine, (p) => p.fitness, {
          trained: mine.map((s) => s.spent),
          envSteps: mine.map((s) => s.envSteps),
          wallS: mean(mine.map((s) => s.wallS)),
        });
      }),
    ];
  });

/** Every pair of strategies' paired differences of F per task, paired by (run, fresh training seed). */
export const benchDiffs = (scores: readonly BenchScore[], strategies: readonly string[], tasks: readonly string[]): BenchDiff[] =>
  tasks.flatMap((task) => {
    const byKey = (strategy: string) =>
      new Map(
        scores
          .filter((s) => s.task === task && s.strategy === strategy)
          .flatMap((s) => s.perSeed.filter((p) => p.fitness !== null).map((p) => [`${s.run}/${p.seed}`, p.fitness!] as const)),
      );
    return strategies.flatMap((a, i) =>
      strategies.slice(i + 1).map((b): BenchDiff => {
        const [ma, mb] = [byKey(a), byKey(b)];
        const diffs = [...ma].filter(([k]) => mb.has(k)).map(([k, v]) => v - mb.get(k)!);
        return { task, a, b, interval: bootstrapMean(diffs, { seed: 1 }) };
      }),
    );
  });

/** Per task, the budget its final trainings ran at against its scored budget (from the first score that records it). */
export const benchBudgets = (scores: readonly BenchScore[], tasks: readonly string[]): string[] =>
  tasks.flatMap((task) => {
    const s = scores.find((x) => x.task === task && x.steps !== null && x.scoredSteps !== null);
    return s ? [`${task}: final trainings ${budgetText(s.steps!, s.scoredSteps!)}`] : [];
  });
