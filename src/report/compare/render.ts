import { unitsText, type Interval } from "../../util/stats.ts";
import type { CellResult, FinalFigure, RateFigure } from "./results.ts";
import { fixed } from "../../cli-kit/format.ts";

/** results.md and results.csv of `hexa compare`: every run shown, every figure with its n (print.ts: the printed table). */

export interface CompareHeader {
  config: string;
  grid: string;
  runs: number;
  heldOutSeeds: Record<string, number[]>;
  baseline: { id: string; label: string };
  skipped: { id: string; label: string; reason: string }[];
}

const pct = (v: number) => (Number.isFinite(v) ? `${(v * 100).toFixed(1)}%` : "–");
const pts = (v: number) => `${v >= 0 ? "+" : ""}${(v * 100).toFixed(1)}`;

const rateText = (f: RateFigure | undefined): string => (f ? `${pct(f.mean)} ± ${(f.std * 100).toFixed(1)} (n = ${f.runs} × ${f.seeds})` : "not evaluated");
const perRun = (f: RateFigure | undefined) => (f ? f.perRun.map(pct).join(", ") : "–");

/** `+12.5 points [−4.2, +29.2] (n = 12 pairs), within noise` */
const diffText = (d: Interval | undefined): string =>
  !d || d.n === 0
    ? ""
    : d.why
      ? `${pts(d.mean)}, no interval (${d.why})`
      : `${pts(d.mean)} [${pts(d.low)}, ${pts(d.high)}] (${unitsText(d)})${d.withinNoise ? " within noise" : ""}`;

const row = (cells: readonly string[]) => `| ${cells.join(" | ")} |`;

const figureText = (f: FinalFigure["figures"][number] | undefined): string =>
  f ? `${fixed(f.mean)} ± ${fixed(f.std)} (n = ${f.perRun.filter((v) => v !== null).length})` : "–";
/** `+1.25 [−0.50, +3.00] (n = 6)`: a paired difference in the figure's own unit. */
const rawDiffText = (d: Interval | undefined): string => {
  if (!d || d.n === 0) return "";
  const m = `${d.mean >= 0 ? "+" : ""}${fixed(d.mean)}`;
  return d.why ? `${m}, no interval (${d.why})` : `${m} [${fixed(d.low)}, ${fixed(d.high)}] (${unitsText(d)})${d.withinNoise ? " within noise" : ""}`;
};

/**
 * The family's final figures per level (reward search: F and its paired differences from the sparse and human
 * rewards), the headline first; then the headline per run, its paired difference from the baseline by (run, seed),
 * and what each run spent.
 */
const finalTable = (cells: readonly CellResult[], baseline: string): string[] => {
  const withFinal = cells.filter((c) => c.levels.some((l) => l.final));
  const first = withFinal.flatMap((c) => c.levels).find((l) => l.final)?.final;
  if (!first) return [];
  const labels = first.figures.map((f) => f.label);
  const headline = labels[0]!;
  return [
    `Final score: ${first.measure}; each figure's mean ± std over runs, the ${headline} of every run, its paired difference from ${baseline} on the same (run, seed) measurements, and what each run spent on the level.`,
    "",
    row(["cell", "level", ...labels, `${headline} per run`, `Δ ${headline} vs ${baseline}, 95% CI`, "spent per run"]),
    row(["---", "---", ...labels.map(() => "---:"), "---", "---", "---"]),
    ...withFinal.flatMap((c) =>
      c.levels.map((l) =>
        row([
          `${c.id} (${c.label})`,
          l.level,
          ...labels.map((label) => figureText(l.final?.figures.find((f) => f.label === label))),
          l.final ? l.final.figures[0]!.perRun.map((v) => fixed(v)).join(", ") : "–",
          c.id === baseline ? "baseline" : rawDiffText(l.vsBaseline?.final),
          l.final ? l.final.spent.join(", ") : "–",
        ]),
      ),
    ),
  ];
};

const tables = (cells: readonly CellResult[], baseline: string) => {
  const success = [
    row([
      "cell",
      "level",
      "success during learning",
      "per run",
      "mean turns",
      "held-out (frozen bank)",
      "per run",
      `Δ learning vs ${baseline}, 95% CI`,
      `Δ held-out vs ${baseline}`,
    ]),
    row(["---", "---", "---:", "---", "---:", "---:", "---", "---", "---"]),
    ...cells.flatMap((c) =>
      c.levels.map((l) =>
        row([
          `${c.id} (${c.label})`,
          l.level,
          rateText(l.stream),
          perRun(l.stream),
          Number.isFinite(l.turns.mean) ? `${l.turns.mean.toFixed(1)} ± ${l.turns.std.toFixed(1)}` : "–",
          rateText(l.heldOut),
          perRun(l.heldOut),
          c.id === baseline ? "baseline" : diffText(l.vsBaseline?.stream),
          c.id === baseline ? "baseline" : diffText(l.vsBaseline?.heldOut),
        ]),
      ),
    ),
  ];
  const cost = [
    row(["cell", "runs", "tokens per run", "cost per run", "wall time per run", "total cost", "total wall time"]),
    row(["---", "---:", "---:", "---:", "---:", "---:", "---:"]),
    ...cells.map((c) =>
      row([
        `${c.id} (${c.label})`,
        String(c.runs.length),
        Math.round(c.tokens.mean).toString(),
        `$${c.costUsd.mean.toFixed(4)}`,
        `${c.wallS.mean.toFixed(1)} s`,
        `$${c.costUsd.total.toFixed(4)}${c.unpricedCalls ? ` + ${c.unpricedCalls} unpriced calls` : ""}`,
        `${c.wallS.total.toFixed(1)} s`,
      ]),
    ),
  ];
  const final = finalTable(cells, baseline);
  return { success, cost, final };
};

const notes = (h: CompareHeader) => [
  `Success is the cumulative success rate over the learning stream (mean ± std over runs; n = runs × seeds per run). Held-out: each run's frozen final bank on the same unseen seeds (${Object.entries(
    h.heldOutSeeds,
  )
    .map(([l, s]) => `${l}: ${s.length} seeds`)
    .join("; ")}).`,
  `Δ: paired difference from the baseline in points, pairs matched by (run index, seed); the unit is the run: each run's pairs are averaged, and the 95% percentile bootstrap interval (2000 resamples, seeded) resamples runs (n = runs, with the seeds they hold); fewer than 3 runs give no interval; an interval containing 0 is within noise.`,
];

export const renderMarkdown = (h: CompareHeader, cells: readonly CellResult[]): string => {
  const t = tables(cells, h.baseline.id);
  return [
    `# hexa compare`,
    "",
    `Config \`${h.config}\`, grid ${h.grid}, ${h.runs} run(s) per cell; baseline ${h.baseline.id} (${h.baseline.label}).`,
    "",
    ...notes(h).flatMap((n) => [n, ""]),
    ...t.success,
    "",
    ...t.cost,
    "",
    ...(t.final.length ? [...t.final, ""] : []),
    ...(h.skipped.length ? ["Skipped cells (the run loop refuses them):", "", ...h.skipped.map((s) => `- ${s.id} (${s.label}): ${s.reason}`), ""] : []),
    "Runs:",
    "",
    ...cells.flatMap((c) => c.runs.map((r) => `- ${c.id} run ${r.run}: \`${r.dir}\``)),
    "",
    "![cumulative success](success.svg)",
    "",
  ].join("\n");
};

export const csvField = (v: string | number) => {
  const s = String(v);
  return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
};

/** One row per (cell, level, run): every run's figures, for a spreadsheet or a reviewer's own statistics. */
export const renderCsv = (cells: readonly CellResult[]): string => {
  const head = [
    "cell",
    "label",
    "level",
    "run",
    "run_dir",
    "stream_success_rate",
    "stream_seeds",
    "mean_turns",
    "heldout_success_rate",
    "heldout_seeds",
    "final_headline",
    "final_figures",
    "final_spent",
    "tokens",
    "cost_usd",
    "wall_s",
  ];
  const rows = cells.flatMap((c) =>
    c.levels.flatMap((l) =>
      c.runs.map((r, i) => [
        c.id,
        c.label,
        l.level,
        r.run,
        r.dir,
        l.stream.perRun[i] ?? "",
        l.stream.seeds,
        l.turns.perRun[i]?.toFixed(3) ?? "",
        l.heldOut?.perRun[i] ?? "",
        l.heldOut?.seeds ?? "",
        l.final?.figures[0]?.perRun[i] ?? "",
        l.final ? l.final.figures.map((f) => `${f.label}=${f.perRun[i] ?? ""}`).join("; ") : "",
        l.final?.spent[i] ?? "",
        r.tokens,
        r.costUsd.toFixed(6),
        r.wallS.toFixed(2),
      ]),
    ),
  );
  return [head, ...rows].map((r) => r.map(csvField).join(",")).join("\n") + "\n";
};
