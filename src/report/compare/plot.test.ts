import { describe, expect, it } from "vitest";
import { SERIES_COLOURS } from "../palette.ts";
import { coincidentCurves, curveSvg } from "./plot.ts";
import { compareResults, type CellInput, type EpisodeOutcome } from "./results.ts";

/** The compare plot (success.svg / success.png) on five cells over two levels, two of them with the same outcomes. */

const outcomes = (wins: readonly boolean[]): EpisodeOutcome[] =>
  ["catapult", "pass_the_parcel"].flatMap((level) => wins.map((success, i) => ({ level, round: 1 + Math.floor(i / 2), seed: 100 + i, success, turns: 5 })));

const LABELS = [
  "init=offline, update=replacement, rounds=3",
  "init=off2on, update=evolving, rounds=3",
  "init=off2on, update=replacement, rounds=3",
  "init=online, update=evolving, rounds=3",
  "init=online, update=replacement, rounds=3",
];
const WINS = [
  [true, false, true, false],
  [true, true, false, true],
  [true, false, true, false],
  [false, false, true, true],
  [false, true, true, true],
];

const cells: CellInput[] = LABELS.map((label, i) => ({
  id: `c${i + 1}`,
  label,
  runs: [0, 1].map((run) => ({ run, dir: `/x/c${i + 1}-r${run}`, stream: outcomes(WINS[i]!), tokens: 0, costUsd: 0, unpricedCalls: 0, wallMs: 0 })),
}));
const results = compareResults(cells, ["catapult", "pass_the_parcel"], "c1");

const attr = (svg: string, pattern: RegExp) => [...svg.matchAll(pattern)].map((m) => m[1]!);

describe("the compare plot", () => {
  it("names every cell in full, with its own colour of the colour-blind-safe palette and its own dash", async () => {
    const svg = await curveSvg(results);
    const texts = attr(svg, /<text[^>]*>([^<]*)<\/text>/g);
    for (const [i, label] of LABELS.entries()) expect(texts).toContain(`c${i + 1}: ${label} (2 runs)`);
    expect(texts.filter((t) => t.includes("…"))).toEqual([]);
    // The legend's symbols are drawn whole, not at the band's opacity.
    expect(attr(svg, /class="mark-symbol role-legend-symbol"[^>]*><path[^>]*opacity="([^"]+)"/g)).toEqual(["1", "1", "1", "1", "1"]);
    // The mean lines: one path per cell and level, stroked 2.5 wide.
    const lines = [...svg.matchAll(/<path[^>]*stroke-width="2.5"[^>]*>/g)].map((m) => m[0]);
    const styles = new Set(lines.map((l) => `${attr(l, /stroke="([^"]+)"/g)[0]}|${attr(l, /stroke-dasharray="([^"]+)"/g)[0] ?? "solid"}`));
    expect(styles.size).toBe(5);
    const colours = new Set(lines.map((l) => attr(l, /stroke="([^"]+)"/g)[0]!.toLowerCase()));
    expect([...colours].every((c) => SERIES_COLOURS.map((p) => p.toLowerCase()).includes(c))).toBe(true);
    expect(colours.size).toBe(5);
    expect(new Set(lines.map((l) => attr(l, /stroke-dasharray="([^"]+)"/g)[0] ?? "solid")).size).toBe(5);
  });

  it("labels the seed index with whole numbers only", async () => {
    const svg = await curveSvg(results);
    const xAxes = [
      ...svg.matchAll(/<g class="mark-group role-axis" role="graphics-symbol" aria-roledescription="axis" aria-label="X-axis[^"]*">([\s\S]*?)<\/g><\/g><\/g>/g),
    ];
    expect(xAxes.length).toBeGreaterThan(0);
    const ticks = xAxes.flatMap((a) => attr(a[1]!, /<text[^>]*>([^<]*)<\/text>/g)).filter((t) => /\d/.test(t));
    expect(ticks.length).toBeGreaterThan(0);
    for (const t of ticks) expect(t).toMatch(/^\d+$/);
  });

  it("says which cells' lines lie on each other", async () => {
    expect(coincidentCurves(results)).toEqual(["c1 = c3 on catapult", "c1 = c3 on pass_the_parcel"]);
    // The chart's title, its lines as tspans.
    const title = attr(await curveSvg(results), /aria-label="Title text '([^']*)'/g);
    const note = title.find((t) => t.startsWith("Same mean curve"))!.replace(/;,\s*/g, "; ");
    expect(note).toBe("Same mean curve, drawn one over the other (the dashes show both): c1 = c3 on catapult; c1 = c3 on pass_the_parcel");
  });
});
