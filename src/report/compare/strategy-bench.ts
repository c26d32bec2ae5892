import * as vega from "vega";
import { compile, type TopLevelSpec } from "vega-lite";
import { csvField } from "./render.ts";
import { bootstrapMean, mean, std, type Interval } from "../../util/stats.ts";

/**
 * `hexa bench reward-search` (docs/spec/reward-search.md §8.5) from the runs' final scores: per task, a row per strategy with the
 * human-normalised score of its final reward's policy by the final scoring protocol (§7: retrained on fresh
 * training seeds, scored on fresh evaluation seeds), over every (run, fresh training seed) measurement: n, mean ±
 * std and a bootstrap interval; its raw F, the trainings and env steps it spent; the `sparse` and `human` rows
 * (F of those rewards trained on the same seeds; 0 and 1 on the normalised scale by definition); and per pair of
 * strategies the interval of their paired differences (same instance, same fresh seed), which says whether they
 * differ beyond noise.
 */

/** One measurement of a final score: one fresh training seed of one run. */
export interface BenchSeed {
  trainSeed: number;
  score: number | null;
  fitness: number | null;
  sparse: number | null;
  human: number | null;
}

/** One run's final score of one task (final-scores.json), with the run's strategy. */
export interface BenchScore {
  strategy: string;
  /** The run's index; runs of one index search the same task instance in every strategy. */
  run: number;
  task: string;
  score: number | null;
  fitness: number | null;
  sparse: number | null;
  human: number | null;
  spent: number;
  /** Env steps of the run's trainings of the task (trainings × steps), when recorded. */
  envSteps: number | null;
  wallS: number;
  /** The fresh training seeds' figures; a schema-1 file's single training stands as one. */
  perSeed: BenchSeed[];
}

/** Figures over measurements: n, mean ± std, the 95 % bootstrap interval of the mean; the per-run means beside. */
interface BenchFigure {
  n: number;
  mean: number;
  std: number;
  low: number;
  high: number;
  perRun: (number | null)[];
}

export interface BenchRow {
  task: string;
  /** A strategy, or "sparse" / "human". */
  row: string;
  score: BenchFigure;
  fitness: BenchFigure;
  /** Trainings per run (the reference rows: their fresh-seed trainings). */
  trained: number[];
  envSteps: (number | null)[];
  wallS: number;
}

/** The paired difference a − b of two strategies' scores on one task, over (run, fresh seed) pairs. */
export interface BenchDiff {
  task: string;
  a: string;
  b: string;
  interval: Interval;
}

const known = (xs: readonly (number | null)[]) => xs.filter((x): x is number => x !== null && Number.isFinite(x));

const figure = (measured: readonly (number | null)[], perRun: (number | null)[]): BenchFigure => {
  const d = known(measured);
  const b = bootstrapMean(d, { seed: 1 });
  return { n: d.length, mean: mean(d), std: std(d), low: b.low, high: b.high, perRun };
};

const runMean = (xs: readonly (number | null)[]): number | null => (known(xs).length ? mean(known(xs)) : null);

export const benchRows = (scores: readonly BenchScore[], strategies: readonly string[], tasks: readonly string[]): BenchRow[] =>
  tasks.flatMap((task) => {
    const of = scores.filter((s) => s.task === task);
    // The references are the same trainings for every strategy of a run (one instance, the same fresh seeds, cached).
    const ref = of.filter((s) => s.strategy === strategies[0]).sort((a, b) => a.run - b.run);
    const reference = (row: "sparse" | "human", norm: number): BenchRow => ({
      task,
      row,
      score: figure(
        ref.flatMap((s) => s.perSeed.map((p) => (p[row] === null ? null : norm))),
        ref.map((s) => (s[row] === null ? null : norm)),
      ),
      fitness: figure(
        ref.flatMap((s) => s.perSeed.map((p) => p[row])),
        ref.map((s) => s[row]),
      ),
      trained: ref.map((s) => s.perSeed.length),
      envSteps: ref.map(() => null),
      wallS: NaN,
    });
    return [
      reference("sparse", 0),
      reference("human", 1),
      ...strategies.map((strategy): BenchRow => {
        const mine = of.filter((s) => s.strategy === strategy).sort((a, b) => a.run - b.run);
        return {
          task,
          row: strategy,
          score: figure(
            mine.flatMap((s) => s.perSeed.map((p) => p.score)),
            mine.map((s) => s.score ?? runMean(s.perSeed.map((p) => p.score))),
          ),
          fitness: figure(
            mine.flatMap((s) => s.perSeed.map((p) => p.fitness)),
            mine.map((s) => s.fitness),
          ),
          trained: mine.map((s) => s.spent),
          envSteps: mine.map((s) => s.envSteps),
          wallS: mean(mine.map((s) => s.wallS)),
        };
      }),
    ];
  });

/** Every pair of strategies' paired differences of the score per task, paired by (run, fresh training seed). */
export const benchDiffs = (scores: readonly BenchScore[], strategies: readonly string[], tasks: readonly string[]): BenchDiff[] =>
  tasks.flatMap((task) => {
    const byKey = (strategy: string) =>
      new Map(
        scores
          .filter((s) => s.task === task && s.strategy === strategy)
          .flatMap((s) => s.perSeed.filter((p) => p.score !== null).map((p) => [`${s.run}/${p.trainSeed}`, p.score!] as const)),
      );
    return strategies.flatMap((a, i) =>
      strategies.slice(i + 1).map((b): BenchDiff => {
        const [ma, mb] = [byKey(a), byKey(b)];
        const diffs = [...ma].filter(([k]) => mb.has(k)).map(([k, v]) => v - mb.get(k)!);
        return { task, a, b, interval: bootstrapMean(diffs, { seed: 1 }) };
      }),
    );
  });

const f2 = (v: number | null | undefined) => (v === null || v === undefined || !Number.isFinite(v) ? "–" : v.toFixed(2));
const pm = (f: { mean: number; std: number }) => (Number.isFinite(f.mean) ? `${f2(f.mean)} ± ${f2(f.std)}` : "n/a");
const ci = (f: { low: number; high: number }) => (Number.isFinite(f.low) ? `[${f2(f.low)}, ${f2(f.high)}]` : "–");
const row = (cells: readonly string[]) => `| ${cells.join(" | ")} |`;
const steps = (xs: readonly (number | null)[]) =>
  known(xs).length
    ? known(xs)
        .map((x) => x.toLocaleString("en-US"))
        .join(", ")
    : "";

export interface BenchHeader {
  budget: number;
  runs: number;
  trainSteps: number;
  finalTrainings: number;
  proposer: string;
  wallS: number;
  command: string;
}

const benchTable = (rows: readonly BenchRow[]): string[] => [
  row([
    "task",
    "reward",
    "n",
    "human-normalised score",
    "95 % interval",
    "F",
    "per run (normalised)",
    "trained per run",
    "env steps per run",
    "wall per run (all tasks)",
  ]),
  row(["---", "---", "---:", "---:", "---", "---:", "---", "---", "---", "---:"]),
  ...rows.map((r) =>
    row([
      r.task,
      r.row,
      String(r.score.n),
      pm(r.score),
      ci(r.score),
      pm(r.fitness),
      r.score.perRun.map(f2).join(", "),
      r.trained.join(", "),
      steps(r.envSteps),
      Number.isFinite(r.wallS) ? `${r.wallS.toFixed(0)} s` : "",
    ]),
  ),
];

/** Pairs below this count give no verdict: a bootstrap of one or two differences is no interval. */
const MIN_PAIRS = 3;

/**
 * One line per task: which pairs of strategies differ beyond noise (their paired differences' interval excludes 0,
 * over at least MIN_PAIRS pairs).
 */
export const noiseLine = (task: string, diffs: readonly BenchDiff[]): string => {
  const mine = diffs.filter((d) => d.task === task);
  const text = (d: BenchDiff) => `${d.a} − ${d.b} ${f2(d.interval.mean)} ${ci(d.interval)} (n ${d.interval.n})`;
  if (!mine.length) return `${task}: one strategy, nothing to compare.`;
  if (mine.every((d) => d.interval.n < MIN_PAIRS))
    return `${task}: too few paired scores to tell (fewer than ${MIN_PAIRS} per pair, the score undefined elsewhere: F_human ≤ F_sparse): ${mine.map(text).join("; ")}.`;
  const beyond = mine.filter((d) => d.interval.n >= MIN_PAIRS && !d.interval.withinNoise);
  return beyond.length
    ? `${task}: differ beyond noise: ${beyond.map(text).join("; ")}${
        beyond.length < mine.length
          ? `; within noise: ${mine
              .filter((d) => !beyond.includes(d))
              .map(text)
              .join("; ")}`
          : ""
      }.`
    : `${task}: the strategies do not differ beyond noise (every 95 % interval of the paired differences contains 0: ${mine.map(text).join("; ")}).`;
};

export const renderBenchMarkdown = (h: BenchHeader, rows: readonly BenchRow[], diffs: readonly BenchDiff[] = []): string =>
  [
    "# hexa bench reward-search",
    "",
    `\`${h.command}\``,
    "",
    `Human-normalised score (F − F_sparse) / (F_human − F_sparse) of each strategy's final reward, retrained on ${h.finalTrainings} fresh training seeds that no search training used and scored on fresh evaluation seeds, normalised per seed; n = runs × fresh seeds, mean ± std and a 95 % bootstrap interval of the mean. ${h.runs} run(s) per strategy; run r searches task instance r (its own training and evaluation seeds) in every strategy. ` +
      `Every strategy trains ${h.budget} candidates per task of ${h.trainSteps.toLocaleString("en-US")} env steps each (rounds: its episodes' shares, finish included; the counts are shown). Proposer: ${h.proposer}: it measures the strategies, not a model. sparse and human: those rewards trained on the same fresh seeds (0 and 1 by definition). n/a: F_human ≤ F_sparse on every seed, so the score is undefined.`,
    "",
    ...benchTable(rows),
    "",
    "Paired differences of the score (same instance, same fresh seed), 95 % bootstrap intervals:",
    "",
    ...[...new Set(rows.map((r) => r.task))].map((t) => `- ${noiseLine(t, diffs)}`),
    "",
    `Total wall time ${h.wallS.toFixed(0)} s.`,
    "",
    "![human-normalised score per task and strategy](scores.svg)",
    "",
  ].join("\n");

/** One line per (task, row, run). */
export const renderBenchCsv = (rows: readonly BenchRow[]): string =>
  [
    ["task", "reward", "run", "normalised_score", "fitness", "trained"],
    ...rows.flatMap((r) => r.score.perRun.map((s, i) => [r.task, r.row, i, s ?? "", r.fitness.perRun[i] ?? "", r.trained[i] ?? ""])),
  ]
    .map((l) => l.map(csvField).join(","))
    .join("\n") + "\n";

/** Bars of the mean normalised score with a rule from mean − std to mean + std, one panel per task. */
const barSpec = (rows: readonly BenchRow[]): TopLevelSpec => {
  const values = rows
    .filter((r) => Number.isFinite(r.score.mean))
    .map((r) => ({ task: r.task, reward: r.row, mean: r.score.mean, low: r.score.low, high: r.score.high }));
  const x = { field: "reward", type: "nominal", title: null, sort: null } as const;
  return {
    $schema: "https://vega.github.io/schema/vega-lite/v6.json",
    data: { values },
    facet: { column: { field: "task", type: "nominal", title: null } },
    spec: {
      width: 220,
      height: 200,
      layer: [
        {
          mark: { type: "bar" },
          encoding: {
            x,
            y: { field: "mean", type: "quantitative", title: "human-normalised score (mean, 95 % interval)" },
            color: { field: "reward", type: "nominal", legend: null },
          },
        },
        { mark: { type: "rule" }, encoding: { x, y: { field: "low", type: "quantitative" }, y2: { field: "high" } } },
      ],
    },
    config: { font: "DejaVu Sans" },
  };
};

export const benchSvg = (rows: readonly BenchRow[]): Promise<string> => new vega.View(vega.parse(compile(barSpec(rows)).spec), { renderer: "none" }).toSVG();
