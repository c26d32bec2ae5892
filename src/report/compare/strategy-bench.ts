import * as vega from "vega";
import { compile, type TopLevelSpec } from "vega-lite";
import { csvField } from "./render.ts";
import { mean, std } from "../../util/stats.ts";

/**
 * `hexa bench reward-search` (docs/spec/reward-search.md §8.5) from the runs' final scores: per task, a row per strategy with the
 * human-normalised score of its final reward's policy on held-out evaluation seeds (mean ± std over runs), its
 * raw F and the trainings it spent, plus the `sparse` and `human` rows (F of those rewards under the same
 * trainer, on the same instance and seeds; 0 and 1 on the normalised scale by definition).
 */

/** One run's final score of one task (final-scores.json), with the run's strategy. */
export interface BenchScore {
  strategy: string;
  run: number;
  task: string;
  score: number | null;
  fitness: number | null;
  sparse: number | null;
  human: number | null;
  spent: number;
  wallS: number;
}

export interface BenchRow {
  task: string;
  /** A strategy, or "sparse" / "human". */
  row: string;
  score: { mean: number; std: number; perRun: (number | null)[] };
  fitness: { mean: number; std: number; perRun: (number | null)[] };
  /** Trainings per run (the reference rows: 1, their own training). */
  trained: number[];
  wallS: number;
}

const figure = (xs: (number | null)[]) => {
  const d = xs.filter((x): x is number => x !== null && Number.isFinite(x));
  return { mean: mean(d), std: std(d), perRun: xs };
};

export const benchRows = (scores: readonly BenchScore[], strategies: readonly string[], tasks: readonly string[]): BenchRow[] =>
  tasks.flatMap((task) => {
    const of = scores.filter((s) => s.task === task);
    // The references are the same trainings in every run (one instance, cached): one run's worth stands for them.
    const runs = [...new Set(of.filter((s) => s.strategy === strategies[0]).map((s) => s.run))].sort((a, b) => a - b);
    const ref = runs.map((r) => of.find((s) => s.run === r));
    const reference = (row: "sparse" | "human", norm: number | null): BenchRow => ({
      task,
      row,
      score: figure(ref.map((s) => (s && s[row] !== null ? norm : null))),
      fitness: figure(ref.map((s) => s?.[row] ?? null)),
      trained: ref.map(() => 1),
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
          score: figure(mine.map((s) => s.score)),
          fitness: figure(mine.map((s) => s.fitness)),
          trained: mine.map((s) => s.spent),
          wallS: mean(mine.map((s) => s.wallS)),
        };
      }),
    ];
  });

const f2 = (v: number | null | undefined) => (v === null || v === undefined || !Number.isFinite(v) ? "–" : v.toFixed(2));
const pm = (f: { mean: number; std: number }) => (Number.isFinite(f.mean) ? `${f2(f.mean)} ± ${f2(f.std)}` : "n/a");
const row = (cells: readonly string[]) => `| ${cells.join(" | ")} |`;

export interface BenchHeader {
  budget: number;
  runs: number;
  trainSteps: number;
  proposer: string;
  wallS: number;
  command: string;
}

const benchTable = (rows: readonly BenchRow[]): string[] => [
  row(["task", "reward", "human-normalised score", "F", "per run (normalised)", "trained per run", "wall per run (all tasks)"]),
  row(["---", "---", "---:", "---:", "---", "---", "---:"]),
  ...rows.map((r) =>
    row([
      r.task,
      r.row,
      pm(r.score),
      pm(r.fitness),
      r.score.perRun.map(f2).join(", "),
      r.trained.join(", "),
      Number.isFinite(r.wallS) ? `${r.wallS.toFixed(0)} s` : "",
    ]),
  ),
];

export const renderBenchMarkdown = (h: BenchHeader, rows: readonly BenchRow[]): string =>
  [
    "# hexa bench reward-search",
    "",
    `\`${h.command}\``,
    "",
    `Human-normalised score (F − F_sparse) / (F_human − F_sparse) of each strategy's final reward, trained again on the task's first stream seed and evaluated with its final policy on held-out evaluation seeds that no search training used; mean ± std over ${h.runs} run(s) (runs differ in the search's seed). ` +
      `Every strategy trains ${h.budget} candidates per task (rounds: its episodes' shares, an early commit's rest passed on; the count is shown); every training is ${h.trainSteps.toLocaleString("en-US")} env steps. Proposer: ${h.proposer}. sparse and human: those rewards under the same trainer (0 and 1 by definition). n/a: F_human ≤ F_sparse on the instance, so the score is undefined.`,
    "",
    ...benchTable(rows),
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
    .map((r) => ({ task: r.task, reward: r.row, mean: r.score.mean, low: r.score.mean - r.score.std, high: r.score.mean + r.score.std }));
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
            y: { field: "mean", type: "quantitative", title: "human-normalised score (mean ± std over runs)" },
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
