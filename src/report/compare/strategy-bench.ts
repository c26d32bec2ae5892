import * as vega from "vega";
import { compile, type TopLevelSpec } from "vega-lite";
import { csvField } from "./render.ts";
import type { Figure } from "../../store/final-scores.ts";
import { unitsText, type Interval } from "../../util/stats.ts";
import { fixed } from "../../cli-kit/format.ts";

/**
 * `hexa bench reward-search` (docs/spec/reward-search.md §8.5) rendered: per task, a row per strategy and the `sparse`
 * and `human` rows with the family's figures of its final scores (§7: F of the final policy over every (run, fresh
 * training seed) measurement, its paired differences from the sparse and human rewards, the normalised score where
 * it is defined), F per run and what each run spent; and per pair of strategies the interval of their paired
 * differences of F (same instance, same fresh seed), which says whether they differ beyond noise.
 */

export interface BenchRow {
  task: string;
  /** A strategy, or "sparse" / "human". */
  row: string;
  /** The family's figures over every measurement, F first. */
  figures: Figure[];
  /** F's mean per run. */
  perRun: (number | null)[];
  /** Per run: its F equals the sparse reward's exactly (a failed or missing final reward is scored as the sparse one). */
  asSparse: boolean[];
  /** Trainings per run (the reference rows: their fresh-seed trainings). */
  trained: number[];
  envSteps: (number | null)[];
  /** Mean wall time of the runs that trained everything themselves; runs a cache answered and runs without a record counted apart. */
  wall: { meanS: number | null; trained: number; cacheHit: number; unknown: number };
}

/** The paired difference a − b of two strategies' F on one task, over runs (each run's fresh seeds averaged). */
export interface BenchDiff {
  task: string;
  a: string;
  b: string;
  interval: Interval;
}

const known = (xs: readonly (number | null)[]) => xs.filter((x): x is number => x !== null && Number.isFinite(x));

const ci = (f: { low: number; high: number }) => (Number.isFinite(f.low) ? `[${fixed(f.low)}, ${fixed(f.high)}]` : "–");
/** `mean ± std [lo, hi]`, `mean ± std (no interval: why)` with too few runs, or `n/a: why`. */
const figureCell = (f: Figure | undefined) =>
  !f
    ? "–"
    : f.mean === null
      ? `n/a: ${f.why ?? "undefined"}`
      : `${fixed(f.mean)}${f.std === undefined ? "" : ` ± ${fixed(f.std)}`}${f.ci95 ? ` [${fixed(f.ci95[0])}, ${fixed(f.ci95[1])}]` : f.why ? ` (no interval: ${f.why})` : ""}`;
const row = (cells: readonly string[]) => `| ${cells.join(" | ")} |`;
const perRunCell = (r: BenchRow) => r.perRun.map((v, i) => `${fixed(v)}${r.asSparse[i] ? " (= sparse)" : ""}`).join(", ");
const wallCell = ({ wall: w }: BenchRow) =>
  [
    w.meanS === null ? "" : `${w.meanS.toFixed(0)} s (${w.trained} run${w.trained === 1 ? "" : "s"})`,
    w.cacheHit ? `${w.cacheHit} with cache hits, not timed` : "",
    w.unknown ? `${w.unknown} not timed: cache use unrecorded` : "",
  ]
    .filter(Boolean)
    .join("; ");
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
  /** Wall time of the command that made the table, when it is one (a page re-rendered from data has none). */
  wallS?: number;
  command: string;
  /** Per task, the budget its final trainings ran at against its scored budget. */
  budgets: string[];
}

const benchTable = (rows: readonly BenchRow[]): string[] => {
  const labels = rows[0]?.figures.map((f) => f.label) ?? [];
  return [
    row([
      "task",
      "reward",
      "n",
      ...labels.map((l, i) => (i === 0 ? `${l} (95 % interval)` : l)),
      `${labels[0] ?? ""} per run`,
      "trained per run",
      "env steps per run",
      "wall per run that trained (all tasks)",
    ]),
    row(["---", "---", "---:", ...labels.map(() => "---:"), "---", "---", "---", "---:"]),
    ...rows.map((r) =>
      row([
        r.task,
        r.row,
        String(r.figures[0]?.n ?? 0),
        ...labels.map((_, i) => figureCell(r.figures[i])),
        perRunCell(r),
        r.trained.join(", "),
        steps(r.envSteps),
        wallCell(r),
      ]),
    ),
  ];
};

/**
 * One line per task: which pairs of strategies differ beyond noise (their paired differences' interval excludes 0;
 * a pair without an interval, too few runs, gives no verdict).
 */
export const noiseLine = (task: string, diffs: readonly BenchDiff[]): string => {
  const mine = diffs.filter((d) => d.task === task);
  const text = (d: BenchDiff) => `${d.a} − ${d.b} ${fixed(d.interval.mean)} ${d.interval.why ? "no interval" : ci(d.interval)} (${unitsText(d.interval)})`;
  if (!mine.length) return `${task}: one strategy, nothing to compare.`;
  if (mine.every((d) => d.interval.why)) return `${task}: too few runs to tell (${mine[0]!.interval.why}): ${mine.map(text).join("; ")}.`;
  const beyond = mine.filter((d) => !d.interval.why && !d.interval.withinNoise);
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
    "# Search strategies at equal budgets",
    "",
    `\`${h.command}\``,
    "",
    `F of each strategy's final reward, retrained on ${h.finalTrainings} fresh training seeds that no search training used and scored on fresh evaluation seeds. The unit is the run (the seeds of a run retrain one searched reward): each run's seeds are averaged first, n = runs, mean ± std over runs and a 95 % bootstrap interval over runs (none below 3 runs); F − F_sparse and F − F_human: paired differences from the sparse and human rewards trained on the same seeds; normalised: (mean F − mean F_sparse) / |mean F_human − mean F_sparse| with a paired bootstrap over runs, n/a where the human and sparse rewards are not told apart (the human row's F − F_sparse interval contains 0). "(= sparse)": the run's F equals the sparse reward's exactly, as when its final reward failed or was missing and was scored as the sparse one. Wall times only for runs that trained everything themselves. ${h.runs} run(s) per strategy; run r searches task instance r (its own training and evaluation seeds) in every strategy. ` +
      `Every strategy trains ${h.budget} candidates per task of ${h.trainSteps.toLocaleString("en-US")} env steps each (rounds: its episodes' shares, finish included; the counts are shown). Proposer: ${h.proposer}: it measures the strategies, not a model.`,
    "",
    ...h.budgets.map((b) => `- ${b}`),
    ...(h.budgets.length ? [""] : []),
    ...benchTable(rows),
    "",
    "Differences of F paired by run (same instance, same fresh seeds, each run's seeds averaged), 95 % bootstrap intervals over runs:",
    "",
    ...[...new Set(rows.map((r) => r.task))].map((t) => `- ${noiseLine(t, diffs)}`),
    "",
    ...(h.wallS === undefined
      ? []
      : [
          `Wall time of this command ${h.wallS.toFixed(0)} s (runs it found finished in its folder are read, not played again; the table gives each run's own).`,
          "",
        ]),
    "![F per task and reward](scores.svg)",
    "",
  ].join("\n");

/** One line per (task, row, run): F's mean over the run's fresh seeds. */
export const renderBenchCsv = (rows: readonly BenchRow[]): string =>
  [["task", "reward", "run", "fitness", "trained"], ...rows.flatMap((r) => r.perRun.map((f, i) => [r.task, r.row, i, f ?? "", r.trained[i] ?? ""]))]
    .map((l) => l.map(csvField).join(","))
    .join("\n") + "\n";

/** Bars of mean F with a rule over its 95 % interval, one panel per task, each on its own scale. */
const barSpec = (rows: readonly BenchRow[]): TopLevelSpec => {
  const values = rows.flatMap((r) => {
    const f = r.figures[0];
    return f?.mean !== null && f?.ci95 ? [{ task: r.task, reward: r.row, mean: f.mean, low: f.ci95[0], high: f.ci95[1] }] : [];
  });
  const x = { field: "reward", type: "nominal", title: null, sort: null } as const;
  return {
    $schema: "https://vega.github.io/schema/vega-lite/v6.json",
    data: { values },
    facet: { column: { field: "task", type: "nominal", title: null } },
    // F has each task's own unit and range.
    resolve: { scale: { y: "independent" } },
    spec: {
      width: 220,
      height: 200,
      layer: [
        {
          mark: { type: "bar" },
          encoding: {
            x,
            y: { field: "mean", type: "quantitative", title: "F of the final policy (mean, 95 % interval)" },
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
