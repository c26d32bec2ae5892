import { fixed } from "../../cli-kit/format.ts";
import type { Interval } from "../../util/stats.ts";
import type { CompareHeader } from "./render.ts";
import type { CellResult, FinalFigure, RateFigure } from "./results.ts";
import { textTable, wrapLine } from "./text-table.ts";

/**
 * The table `hexa compare` prints: at most `WIDTH` columns. Cells are named by id and listed once with their
 * values; one table per level (success in %, mean ± std over runs, and the paired difference from the baseline
 * with its interval), each figure's n under its table; then cost and the family's final scores. Every run's own
 * value is in results.md and results.csv, which the command names after this.
 */

export const WIDTH = 100;

const pct = (f: RateFigure | undefined) => (f && Number.isFinite(f.mean) ? `${(f.mean * 100).toFixed(1)} ± ${(f.std * 100).toFixed(1)}` : "–");
const signed = (v: number, unit: number, digits: number) => `${v >= 0 ? "+" : ""}${(v * unit).toFixed(digits)}`;

/** `+22.2 [-5.6, +44.4] ~` (`~`: the interval contains 0), `+22.2 (no CI)` where too few runs give none; `–` without pairs. */
const diff = (d: Interval | undefined, unit: number, digits: number): string => {
  if (!d || d.n === 0) return "–";
  if (!Number.isFinite(d.low)) return `${signed(d.mean, unit, digits)} (no CI)`;
  return `${signed(d.mean, unit, digits)} [${signed(d.low, unit, digits)}, ${signed(d.high, unit, digits)}]${d.withinNoise ? " ~" : ""}`;
};

/** `what n` for each cell: once when every cell has the same, else per cell. */
const nLine = (what: string, perCell: readonly [string, string | undefined][]): string | undefined => {
  const known = perCell.filter((x): x is [string, string] => x[1] !== undefined);
  if (!known.length) return undefined;
  const distinct = new Set(known.map(([, n]) => n));
  return distinct.size === 1 ? `${what} ${known[0]![1]}` : `${what} ${known.map(([id, n]) => `${id} ${n}`).join(", ")}`;
};
const rateN = (f: RateFigure | undefined) => (f ? `${f.runs} run${f.runs === 1 ? "" : "s"} × ${f.seeds} seeds` : undefined);
/** How many independent units (runs, their seeds averaged) the interval resampled, or why there is none. */
const diffN = (d: Interval | undefined) => (d && d.n > 0 ? (d.why ?? `${d.n} ${d.unit}${d.n === 1 ? "" : "s"}`) : undefined);

const cellList = (h: CompareHeader, cells: readonly CellResult[]): string[] => [
  `cells (baseline ${h.baseline.id}):`,
  ...cells.flatMap((c) => wrapLine(`  ${c.id.padEnd(4)}${c.label}`, WIDTH, "      ")),
];

const levelTable = (cells: readonly CellResult[], level: string, baseline: string): string[] => {
  const of = (c: CellResult) => c.levels.find((l) => l.level === level);
  const vs = (c: CellResult, d: Interval | undefined) => (c.id === baseline ? "baseline" : diff(d, 100, 1));
  const table = textTable(
    [
      { header: "cell" },
      { header: "learning %", align: "right" },
      { header: "held-out %", align: "right" },
      { header: "turns", align: "right" },
      { header: `Δ learning vs ${baseline}` },
      { header: `Δ held-out vs ${baseline}` },
    ],
    cells.map((c) => {
      const l = of(c);
      return [
        c.id,
        pct(l?.stream),
        pct(l?.heldOut),
        l && Number.isFinite(l.turns.mean) ? l.turns.mean.toFixed(1) : "–",
        vs(c, l?.vsBaseline?.stream),
        vs(c, l?.vsBaseline?.heldOut),
      ];
    }),
    WIDTH,
  );
  const ns = [
    nLine(
      "learning",
      cells.map((c) => [c.id, rateN(of(c)?.stream)]),
    ),
    nLine(
      "held-out",
      cells.map((c) => [c.id, rateN(of(c)?.heldOut)]),
    ),
    nLine(
      "Δ learning",
      cells.map((c) => [c.id, diffN(of(c)?.vsBaseline?.stream)]),
    ),
    nLine(
      "Δ held-out",
      cells.map((c) => [c.id, diffN(of(c)?.vsBaseline?.heldOut)]),
    ),
  ].filter((x): x is string => x !== undefined);
  return [`${level}:`, ...table, ...wrapLine(`n: ${ns.join("; ")}`, WIDTH, "   ")];
};

const costTable = (cells: readonly CellResult[]): string[] =>
  textTable(
    [
      { header: "cost" },
      { header: "runs", align: "right" },
      { header: "tokens/run", align: "right" },
      { header: "cost/run", align: "right" },
      { header: "wall/run", align: "right" },
      { header: "total cost", align: "right" },
      { header: "total wall", align: "right" },
    ],
    cells.map((c) => [
      c.id,
      String(c.runs.length),
      Math.round(c.tokens.mean).toString(),
      `$${c.costUsd.mean.toFixed(4)}`,
      `${c.wallS.mean.toFixed(1)} s`,
      `$${c.costUsd.total.toFixed(4)}${c.unpricedCalls ? ` + ${c.unpricedCalls} unpriced` : ""}`,
      `${c.wallS.total.toFixed(1)} s`,
    ]),
    WIDTH,
  );

/** The family's final figures per level (the headline first) and the headline's paired difference from the baseline. */
const finalTables = (cells: readonly CellResult[], baseline: string): string[] => {
  const first = cells.flatMap((c) => c.levels).find((l) => l.final)?.final;
  if (!first) return [];
  const labels = first.figures.map((f) => f.label);
  const figure = (f: FinalFigure["figures"][number] | undefined) => (f ? `${fixed(f.mean)} ± ${fixed(f.std)}` : "–");
  const levels = [...new Set(cells.flatMap((c) => c.levels.filter((l) => l.final).map((l) => l.level)))];
  return [
    "",
    ...wrapLine(`final score: ${first.measure} (mean ± std over runs; Δ ${labels[0]}: paired difference from ${baseline}, 95% CI)`, WIDTH, ""),
    ...levels.flatMap((level) => {
      const rows = cells.flatMap((c) => {
        const l = c.levels.find((x) => x.level === level);
        if (!l?.final) return [];
        return [
          [
            c.id,
            ...labels.map((label) => figure(l.final!.figures.find((f) => f.label === label))),
            c.id === baseline ? "baseline" : diff(l.vsBaseline?.final, 1, 2),
          ],
        ];
      });
      return [
        `${level}:`,
        ...textTable(
          [{ header: "cell" }, ...labels.map((header) => ({ header, align: "right" as const })), { header: `Δ ${labels[0]} vs ${baseline}` }],
          rows,
          WIDTH,
        ),
      ];
    }),
  ];
};

/** The printed summary; every line at most WIDTH characters. */
export const renderText = (h: CompareHeader, cells: readonly CellResult[]): string => {
  const levels = [...new Set(cells.flatMap((c) => c.levels.map((l) => l.level)))];
  return [
    ...cellList(h, cells),
    "",
    ...wrapLine(`success in %: mean ± std over runs. Δ vs ${h.baseline.id}: paired difference in points, 95% CI; ~: within noise`, WIDTH, ""),
    ...levels.flatMap((level) => ["", ...levelTable(cells, level, h.baseline.id)]),
    "",
    ...costTable(cells),
    ...finalTables(cells, h.baseline.id),
    ...(h.skipped.length ? ["", ...h.skipped.flatMap((s) => wrapLine(`skipped ${s.id} (${s.label}): ${s.reason}`, WIDTH))] : []),
    "",
  ].join("\n");
};
