import { headlineBySeed, type FinalScore } from "../../store/final-scores.ts";
import { bootstrapUnits, mean, std, type Interval } from "../../util/stats.ts";

/**
 * The figures of `hexa compare` (docs/spec/method.md §8) from the runs' records: per cell and level, success during learning
 * and on the held-out seeds with every run's value, and each cell's paired difference from the baseline.
 */

export interface EpisodeOutcome {
  level: string;
  round: number;
  seed: number;
  success: boolean;
  turns: number;
}

interface RunInput {
  run: number;
  dir: string;
  stream: EpisodeOutcome[];
  /** Episodes on the comparison's held-out seeds; absent until the run is evaluated. */
  heldOut?: EpisodeOutcome[];
  tokens: number;
  costUsd: number;
  /** Calls to a model missing from the price table: costUsd leaves them out. */
  unpricedCalls: number;
  /** Wall time of the processes that made and evaluated the run, as far as compare saw them. */
  wallMs: number;
  /** The family's final score of each level (final-scores.json: reward search's F and its paired differences), when the run has one. */
  final?: FinalScore[];
}

/** One of the family's figures over runs: each run's mean (null where undefined), mean ± std of the defined ones. */
interface FigureOverRuns {
  label: string;
  perRun: (number | null)[];
  mean: number;
  std: number;
}

/** The final score over runs: each figure of the family (the headline first) and the spend per run. */
export interface FinalFigure {
  figures: FigureOverRuns[];
  spent: number[];
  measure: string;
}

export interface CellInput {
  id: string;
  label: string;
  runs: RunInput[];
}

/** A success rate over runs: its per-run values, mean ± std, and n = runs × seeds. */
export interface RateFigure {
  perRun: number[];
  mean: number;
  std: number;
  runs: number;
  seeds: number;
}

interface LevelResult {
  level: string;
  stream: RateFigure;
  turns: { perRun: number[]; mean: number; std: number };
  heldOut?: RateFigure;
  final?: FinalFigure;
  /**
   * Against the baseline, paired by (run index, seed) and bootstrapped over run indices (each run's pairs averaged
   * first; no interval below 3 runs): success, and the final score's headline; absent for the baseline itself.
   */
  vsBaseline?: { stream: Interval; heldOut?: Interval; final?: Interval };
  /** Cumulative success after each stream episode (seed index 1, 2, …): mean, lowest and highest run. */
  curve: { index: number; mean: number; low: number; high: number }[];
}

export interface CellResult {
  id: string;
  label: string;
  runs: { run: number; dir: string; tokens: number; costUsd: number; wallS: number }[];
  tokens: { mean: number; total: number };
  costUsd: { mean: number; total: number };
  unpricedCalls: number;
  wallS: { mean: number; total: number };
  levels: LevelResult[];
}

const rate = (eps: readonly EpisodeOutcome[]) => (eps.length ? eps.filter((e) => e.success).length / eps.length : NaN);

const figure = (perRun: number[], seeds: number): RateFigure => ({ perRun, mean: mean(perRun), std: std(perRun), runs: perRun.length, seeds });

const ordered = (eps: readonly EpisodeOutcome[], level: string) => eps.filter((e) => e.level === level).sort((a, b) => a.round - b.round || a.seed - b.seed);

const cumulative = (eps: readonly EpisodeOutcome[]): number[] => {
  let wins = 0;
  return eps.map((e, i) => (wins += e.success ? 1 : 0) / (i + 1));
};

const curveOf = (runs: readonly EpisodeOutcome[][]): LevelResult["curve"] => {
  const curves = runs.map(cumulative);
  const length = Math.min(...curves.map((c) => c.length));
  return Array.from({ length: Number.isFinite(length) ? length : 0 }, (_, i) => {
    const at = curves.map((c) => c[i]!);
    return { index: i + 1, mean: mean(at), low: Math.min(...at), high: Math.max(...at) };
  });
};

/**
 * Success differences of (run index, seed) pairs both cells played on the level, grouped by run index: the run is
 * the independent unit (its seeds share one bank's history), so the bootstrap averages each run's pairs first.
 */
export const pairedDiffs = (
  cell: readonly { run: number; eps: readonly EpisodeOutcome[] }[],
  base: readonly { run: number; eps: readonly EpisodeOutcome[] }[],
): number[][] =>
  cell.flatMap(({ run, eps }) => {
    const other = base.find((b) => b.run === run);
    if (!other) return [];
    const bySeed = new Map(other.eps.map((e) => [e.seed, e.success]));
    return [eps.flatMap((e) => (bySeed.has(e.seed) ? [(e.success ? 1 : 0) - (bySeed.get(e.seed)! ? 1 : 0)] : []))];
  });

/** The level's final figures over the cell's runs, in the order of the first run that has them; undefined when none has. */
const finalOverRuns = (cell: CellInput, level: string): FinalFigure | undefined => {
  const finals = cell.runs.map((r) => r.final?.find((f) => f.level === level));
  const some = finals.find((f) => f !== undefined);
  if (!some) return undefined;
  const figures = Object.entries(some.figures).map(([key, f]): FigureOverRuns => {
    const perRun = finals.map((x) => x?.figures[key]?.mean ?? null);
    const defined = perRun.filter((v): v is number => v !== null);
    return { label: f.label, perRun, mean: mean(defined), std: std(defined) };
  });
  return { figures, spent: finals.map((f) => f?.spent ?? 0), measure: some.measure };
};

/** Differences of the final score's headline on (run index, seed) pairs both cells measured, grouped by run index. */
const pairedFinalDiffs = (cell: CellInput, base: CellInput, level: string): number[][] =>
  cell.runs.map((r) => {
    const mine = r.final?.find((f) => f.level === level);
    const theirs = base.runs.find((b) => b.run === r.run)?.final?.find((f) => f.level === level);
    if (!mine || !theirs || mine.headline !== theirs.headline) return [];
    const other = headlineBySeed(theirs);
    return [...headlineBySeed(mine)].flatMap(([seed, v]) => {
      const w = other.get(seed);
      return v !== null && w !== null && w !== undefined ? [v - w] : [];
    });
  });

const levelResult = (cell: CellInput, level: string, base: CellInput | undefined, seed: number): LevelResult => {
  const stream = cell.runs.map((r) => ({ run: r.run, eps: ordered(r.stream, level) }));
  // A level without held-out seeds (its vetted list ran out) is "not evaluated", not 0 of 0.
  const evaluated = cell.runs
    .filter((r) => r.heldOut)
    .map((r) => ({ run: r.run, eps: ordered(r.heldOut!, level) }))
    .filter((x) => x.eps.length > 0);
  const turns = stream.map((s) => mean(s.eps.map((e) => e.turns)));
  const seedsOf = (xs: { eps: readonly EpisodeOutcome[] }[]) => Math.max(0, ...xs.map((x) => x.eps.length));
  const out: LevelResult = {
    level,
    stream: figure(
      stream.map((s) => rate(s.eps)),
      seedsOf(stream),
    ),
    turns: { perRun: turns, mean: mean(turns), std: std(turns) },
    curve: curveOf(stream.map((s) => s.eps)),
  };
  if (evaluated.length)
    out.heldOut = figure(
      evaluated.map((s) => rate(s.eps)),
      seedsOf(evaluated),
    );
  const final = finalOverRuns(cell, level);
  if (final) out.final = final;
  if (base && base.id !== cell.id) {
    const bStream = base.runs.map((r) => ({ run: r.run, eps: ordered(r.stream, level) }));
    const bHeld = base.runs
      .filter((r) => r.heldOut)
      .map((r) => ({ run: r.run, eps: ordered(r.heldOut!, level) }))
      .filter((x) => x.eps.length > 0);
    const heldDiffs = pairedDiffs(evaluated, bHeld);
    const finalDiffs = pairedFinalDiffs(cell, base, level);
    const some = (units: number[][]) => units.some((u) => u.length > 0);
    out.vsBaseline = {
      stream: bootstrapUnits(pairedDiffs(stream, bStream), { seed }),
      ...(some(heldDiffs) ? { heldOut: bootstrapUnits(heldDiffs, { seed }) } : {}),
      ...(some(finalDiffs) ? { final: bootstrapUnits(finalDiffs, { seed }) } : {}),
    };
  }
  return out;
};

/** Every cell's figures; `baseline` is a cell id; the bootstrap is seeded so the same records give the same intervals. */
export const compareResults = (cells: readonly CellInput[], levels: readonly string[], baseline: string, opts: { seed?: number } = {}): CellResult[] => {
  const base = cells.find((c) => c.id === baseline);
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
  return cells.map((cell) => {
    const runs = cell.runs.map((r) => ({ run: r.run, dir: r.dir, tokens: r.tokens, costUsd: r.costUsd, wallS: r.wallMs / 1000 }));
    const of = (f: (r: (typeof runs)[number]) => number) => ({ mean: mean(runs.map(f)), total: sum(runs.map(f)) });
    return {
      id: cell.id,
      label: cell.label,
      runs,
      tokens: of((r) => r.tokens),
      costUsd: of((r) => r.costUsd),
      unpricedCalls: sum(cell.runs.map((r) => r.unpricedCalls)),
      wallS: of((r) => r.wallS),
      levels: levels.map((level) => levelResult(cell, level, base, opts.seed ?? 1)),
    };
  });
};
