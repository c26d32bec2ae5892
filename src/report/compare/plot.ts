import * as vega from "vega";
import { compile, type TopLevelSpec } from "vega-lite";
import type { CellResult } from "./results.ts";

/**
 * The comparison's figure: cumulative success vs seed index per cell, the mean over runs as a line and a band
 * from the lowest to the highest run (the band is the spread a reviewer asks for; docs/spec/method.md §8: about ±9 points).
 * One panel per level. Vega-Lite, rendered to SVG in node.
 */
const curveSpec = (cells: readonly CellResult[]): TopLevelSpec => {
  const values = cells.flatMap((c) =>
    c.levels.flatMap((l) =>
      l.curve.map((p) => ({ cell: `${c.id}: ${c.label}`, level: l.level, index: p.index, mean: p.mean, low: p.low, high: p.high, runs: c.runs.length })),
    ),
  );
  const x = { field: "index", type: "quantitative", title: "seed index in the learning stream", axis: { tickMinStep: 1, format: "d" } } as const;
  const color = { field: "cell", type: "nominal", title: "cell: mean over runs; band: lowest to highest run" } as const;
  return {
    $schema: "https://vega.github.io/schema/vega-lite/v6.json",
    data: { values },
    facet: { column: { field: "level", type: "nominal", title: null } },
    spec: {
      width: 320,
      height: 220,
      layer: [
        {
          mark: { type: "area", opacity: 0.18 },
          encoding: {
            x,
            y: { field: "low", type: "quantitative", title: "cumulative success", scale: { domain: [0, 1] }, axis: { format: "%" } },
            y2: { field: "high" },
            color,
          },
        },
        {
          mark: { type: "line", strokeWidth: 2 },
          encoding: { x, y: { field: "mean", type: "quantitative" }, color },
        },
      ],
    },
    config: { font: "DejaVu Sans", legend: { orient: "bottom", direction: "vertical", labelLimit: 600, titleLimit: 600, symbolOpacity: 1 } },
  };
};

export const curveSvg = (cells: readonly CellResult[]): Promise<string> =>
  new vega.View(vega.parse(compile(curveSpec(cells)).spec), { renderer: "none" }).toSVG();
