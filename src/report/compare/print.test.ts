import { describe, expect, it } from "vitest";
import type { FinalScore } from "../../store/final-scores.ts";
import { renderText, WIDTH } from "./print.ts";
import { compareResults, type CellInput, type EpisodeOutcome } from "./results.ts";
import { textTable } from "./text-table.ts";

/** The table `hexa compare` prints: a terminal's 100 columns, whatever the labels, levels and figures. */

const outcomes = (wins: readonly boolean[], levels: readonly string[]): EpisodeOutcome[] =>
  levels.flatMap((level) => wins.map((success, i) => ({ level, round: 1 + Math.floor(i / 3), seed: 100 + i, success, turns: 7 + i })));

const LEVELS = ["catapult", "pass_the_parcel"];
const cellsOf = (labels: readonly string[], final?: (run: number) => FinalScore): CellInput[] =>
  labels.map((label, i) => ({
    id: `c${i + 1}`,
    label,
    runs: [0, 1, 2].map((run) => ({
      run,
      dir: `/tmp/compare/runs/c${i + 1}-r${run}`,
      stream: outcomes([true, i % 2 === 0, run === 1, false, true, i > 2], LEVELS),
      heldOut: outcomes([run > 0, i !== 1, true], LEVELS).map((e) => ({ ...e, seed: e.seed + 50 })),
      tokens: 123_456,
      costUsd: 0.0123,
      unpricedCalls: 0,
      wallMs: 141_200,
      ...(final ? { final: [final(run)] } : {}),
    })),
  }));

const header = (cells: readonly CellInput[]) => ({
  config: "configs/quickstart.yaml",
  grid: "init=offline,off2on,online × update=evolving,replacement × rounds=2",
  runs: 3,
  heldOutSeeds: { catapult: [150, 151, 152], pass_the_parcel: [150, 151, 152] },
  baseline: { id: "c1", label: cells[0]!.label },
  skipped: [
    {
      id: "c6",
      label: "init=offline, update=evolving, rounds=2",
      reason: "init=offline with update=evolving: an offline bank never changes, so there is nothing to evolve; use update=static",
    },
  ],
});

const LABELS = [
  "init=offline, update=replacement, retriever.topSkills=6, rounds=2",
  "init=off2on, update=evolving, retriever.topSkills=6, rounds=2",
  "init=off2on, update=replacement, retriever.topSkills=6, rounds=2",
  "init=online, update=evolving, retriever.topSkills=6, rounds=2",
  "init=online, update=replacement, retriever.topSkills=6, rounds=2, llm.actor.model=a-rather-long-model-name-2026-01-01",
];

describe("hexa compare's printed table", () => {
  it("fits 100 columns on a 5-cell grid, names each cell once in full and gives every figure's n", () => {
    const cells = cellsOf(LABELS);
    const text = renderText(header(cells), compareResults(cells, LEVELS, "c1"));
    const lines = text.split("\n");
    expect(lines.filter((l) => l.length > WIDTH)).toEqual([]);
    // Each cell's values in full, once (a long one wrapped at a space).
    expect(text.replace(/\n\s+/g, " ")).toContain(`c5  ${LABELS[4]}`);
    for (const level of LEVELS) expect(lines).toContain(`${level}:`);
    expect(lines.find((l) => l.startsWith("cell "))).toMatch(/^cell +learning % +held-out % +turns +Δ learning vs c1 +Δ held-out vs c1$/);
    expect(text).toContain("n: learning 3 runs × 6 seeds; held-out 3 runs × 3 seeds; Δ learning 3 runs; Δ held-out 3 runs");
    expect(lines.find((l) => l.startsWith("c1 "))).toMatch(/baseline +baseline$/);
    expect(text).toMatch(/^c2 +[\d.]+ ± [\d.]+ +[\d.]+ ± [\d.]+ +[\d.]+ +[-+][\d.]+ \[[-+][\d.]+, [-+][\d.]+\]( ~)? +[-+][\d.]+ \[/m);
    expect(text).toMatch(/^cost +runs +tokens\/run +cost\/run +wall\/run +total cost +total wall$/m);
    expect(text).toContain("skipped c6 (init=offline, update=evolving, rounds=2): init=offline with update=evolving:");
  });

  it("prints the family's final scores per level within 100 columns", () => {
    const score = (run: number): FinalScore => ({
      level: "catapult",
      measure: "F of the final policy, trained at 4,096 env steps",
      headline: "fitness",
      figures: {
        fitness: { label: "F", mean: 100 + run, n: 3 },
        vsSparse: { label: "F − sparse", mean: 10 + run, n: 3 },
        vsHuman: { label: "F − human", mean: -5 + run, n: 3 },
        normalised: { label: "normalised", mean: 0.5, n: 3 },
      },
      perSeed: [0, 1, 2].map((s) => ({ seed: 200 + s, fitness: 100 + run + s })),
      spent: 4,
      detail: {},
    });
    const cells = cellsOf(LABELS.slice(0, 2), score);
    const text = renderText(header(cells), compareResults(cells, LEVELS, "c1"));
    expect(text.split("\n").filter((l) => l.length > WIDTH)).toEqual([]);
    expect(text).toMatch(/^cell +F +F − sparse +F − human +normalised +Δ F vs c1$/m);
    expect(text).toMatch(/^c2 +101\.00 ± 1\.00 +11\.00 ± 1\.00/m);
  });

  it("prints a table too wide for the terminal as a block per row", () => {
    const wide = textTable([{ header: "cell" }, { header: "a" }, { header: "b" }], [["c1", "x".repeat(60), "y".repeat(60)]], WIDTH);
    expect(wide).toEqual(["c1", `  a: ${"x".repeat(60)}`, `  b: ${"y".repeat(60)}`]);
  });
});
