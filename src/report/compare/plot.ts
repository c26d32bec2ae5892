import * as vega from "vega";
import { compile, type TopLevelSpec } from "vega-lite";
import { SERIES_COLOURS, seriesColour, seriesDash } from "../palette.ts";
import type { CellResult } from "./results.ts";

/**
 * The comparison's figure: cumulative success vs seed index per cell, the mean over runs as a line and a band
 * from the lowest to the highest run (the band is the spread a reviewer asks for; docs/spec/method.md §8: about ±9 points).
 * One panel per level. Each cell has its own colour and dash (src/report/palette.ts) and its full label in the
 * legend; cells whose mean curves are identical are named under the title, as their lines lie on each other.
 * Vega-Lite, rendered to SVG in node.
 */

const seriesName = (c: CellResult) => `${c.id}: ${c.label} (${c.runs.length} run${c.runs.length === 1 ? "" : "s"})`;

/** Groups of cells (by id) whose mean curves on a level are the same, e.g. `c1 = c3 on catapult`. */
export const coincidentCurves = (cells: readonly CellResult[]): string[] => {
  const levels = [...new Set(cells.flatMap((c) => c.levels.map((l) => l.level)))];
  return levels.flatMap((level) => {
    const groups = new Map<string, string[]>();
    for (const c of cells) {
      const curve = c.levels.find((l) => l.level === level)?.curve;
      if (!curve?.length) continue;
      const key = curve.map((p) => p.mean.toFixed(9)).join(",");
      groups.set(key, [...(groups.get(key) ?? []), c.id]);
    }
    return [...groups.values()].filter((ids) => ids.length > 1).map((ids) => `${ids.join(" = ")} on ${level}`);
  });
};

/** Lines of at most `width` characters, broken after "; ". */
const wrap = (text: string, width: number): string[] =>
  text
    .split(/(?<=; )/)
    .reduce<string[]>((lines, part) => {
      const last = lines.at(-1);
      if (last !== undefined && (last + part).length <= width) lines[lines.length - 1] = last + part;
      else lines.push(part);
      return lines;
    }, [])
    .map((l) => l.trimEnd());

const curveSpec = (cells: readonly CellResult[]): TopLevelSpec => {
  const names = cells.map(seriesName);
  const values = cells.flatMap((c, i) =>
    c.levels.flatMap((l) => l.curve.map((p) => ({ cell: names[i]!, level: l.level, index: p.index, mean: p.mean, low: p.low, high: p.high }))),
  );
  const levels = new Set(values.map((v) => v.level)).size;
  const x = { field: "index", type: "quantitative", title: "seed index in the learning stream", axis: { tickMinStep: 1, format: "d" } } as const;
  const y = { type: "quantitative" as const, title: "cumulative success", scale: { domain: [0, 1] }, axis: { format: "%" } };
  const color = {
    field: "cell",
    type: "nominal",
    title: "cell: mean over runs (line); lowest to highest run (band)",
    scale: { domain: names, range: cells.map((_, i) => seriesColour(i)) },
    sort: names,
  } as const;
  const strokeDash = { field: "cell", type: "nominal", scale: { domain: names, range: cells.map((_, i) => seriesDash(i)) }, sort: names } as const;
  const same = coincidentCurves(cells);
  return {
    $schema: "https://vega.github.io/schema/vega-lite/v6.json",
    ...(same.length ? { title: { text: wrap(`Same mean curve, drawn one over the other (the dashes show both): ${same.join("; ")}`, 100) } } : {}),
    data: { values },
    facet: { field: "level", type: "nominal", title: null },
    columns: Math.min(levels, 2),
    spec: {
      width: 320,
      height: 220,
      layer: [
        // The bands: a light fill, and thin edges so that overlapping bands stay readable.
        { mark: { type: "area", opacity: 0.1 }, encoding: { x, y: { field: "low", ...y }, y2: { field: "high" }, color } },
        { mark: { type: "line", strokeWidth: 1, opacity: 0.5 }, encoding: { x, y: { field: "low", ...y }, color, detail: { field: "cell" } } },
        { mark: { type: "line", strokeWidth: 1, opacity: 0.5 }, encoding: { x, y: { field: "high", ...y }, color, detail: { field: "cell" } } },
        { mark: { type: "line", strokeWidth: 2.5 }, encoding: { x, y: { field: "mean", ...y }, color, strokeDash } },
      ],
    },
    config: {
      font: "DejaVu Sans",
      range: { category: [...SERIES_COLOURS] },
      legend: {
        orient: "bottom",
        direction: "vertical",
        labelLimit: 0,
        titleLimit: 0,
        symbolType: "stroke",
        symbolSize: 400,
        symbolStrokeWidth: 2.5,
        symbolOpacity: 1,
      },
      title: { fontSize: 11, fontWeight: "normal", color: "#8a5a00", anchor: "start" },
    },
  };
};

export const curveSvg = (cells: readonly CellResult[]): Promise<string> =>
  new vega.View(vega.parse(compile(curveSpec(cells)).spec), { renderer: "none" }).toSVG();
