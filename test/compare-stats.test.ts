import { createAppContext } from "../src/app/context.ts";
import { describe, expect, it } from "vitest";
import { cellConfig, checkAxes, gridCells, parseGridFlag } from "../src/loop/compare/grid.ts";
import { compareResults, pairedDiffs, type CellInput, type EpisodeOutcome } from "../src/report/compare/results.ts";
import { renderCsv, renderMarkdown } from "../src/report/compare/render.ts";
import { curveSvg } from "../src/report/compare/plot.ts";

/** The shipped families, as hexa has them with no HEXA_FAMILIES. */
const { families } = await createAppContext({});

// The families are built once, as the CLI builds them before a command reads them.
await families.load();

const ep = (seed: number, success: boolean, round = 1, level = "down_to_earth"): EpisodeOutcome => ({ level, round, seed, success, turns: success ? 4 : 25 });

describe("compare results", () => {
  it("pairs by (run index, seed) and ignores unpaired episodes", () => {
    const a = [
      { run: 0, eps: [ep(1, true), ep(2, false), ep(3, true)] },
      { run: 1, eps: [ep(1, true)] },
    ];
    const b = [{ run: 0, eps: [ep(1, false), ep(2, false), ep(9, true)] }];
    expect(pairedDiffs(a, b)).toEqual([[1, 0]]);
  });

  it("per cell and level: per-run values, mean ± std, n, the curve, Δ vs baseline; markdown and csv show every run", async () => {
    const run = (r: number, wins: boolean[], held: boolean[]) => ({
      run: r,
      dir: `/x/c-r${r}`,
      stream: wins.map((w, i) => ep(i + 1, w, 1 + Math.floor(i / 2))),
      heldOut: held.map((w, i) => ep(100 + i, w, 3)),
      tokens: 10,
      costUsd: 0.01,
      unpricedCalls: 0,
      wallMs: 2000,
    });
    const cells: CellInput[] = [
      { id: "c1", label: "init=online", runs: [run(0, [false, false, true, false], [false, true]), run(1, [false, true, false, false], [false, false])] },
      { id: "c2", label: "init=off2on", runs: [run(0, [true, true, true, false], [true, true]), run(1, [true, true, false, true], [true, false])] },
    ];
    const res = compareResults(cells, ["down_to_earth"], "c1");
    const [c1, c2] = res;
    expect(c1!.levels[0]!.stream).toMatchObject({ perRun: [0.25, 0.25], mean: 0.25, std: 0, runs: 2, seeds: 4 });
    expect(c2!.levels[0]!.stream.perRun).toEqual([0.75, 0.75]);
    expect(c1!.levels[0]!.vsBaseline).toBeUndefined();
    // Pairs: run 0 → +1, +1, 0, 0; run 1 → +1, 0, 0, +1: mean 0.5, over 2 runs (8 seeds): too few runs for an interval.
    expect(c2!.levels[0]!.vsBaseline!.stream).toMatchObject({ mean: 0.5, n: 2, unit: "run", seeds: 8, low: NaN });
    expect(c2!.levels[0]!.heldOut).toMatchObject({ perRun: [1, 0.5], seeds: 2 });
    // Cumulative success of c2: run 0 1, 1, 1, .75; run 1 1, 1, .667, .75.
    expect(c2!.levels[0]!.curve.map((p) => [p.index, p.low, p.high])).toEqual([
      [1, 1, 1],
      [2, 1, 1],
      [3, 2 / 3, 1],
      [4, 0.75, 0.75],
    ]);
    expect(c2!.wallS).toEqual({ mean: 2, total: 4 });
    const header = {
      config: "t.yaml",
      grid: "init=online,off2on",
      runs: 2,
      heldOutSeeds: { down_to_earth: [100, 101] },
      baseline: { id: "c1", label: "init=online" },
      skipped: [{ id: "c3", label: "x", reason: "refused" }],
    };
    const md = renderMarkdown(header, res);
    expect(md).toContain("25.0% ± 0.0 (n = 2 × 4)");
    expect(md).toContain("75.0%, 75.0%");
    expect(md).toContain("c3 (x): refused");
    const csv = renderCsv(res).trim().split("\n");
    expect(csv).toHaveLength(1 + 4);
    expect(csv[1]).toMatch(/^c1,init=online,down_to_earth,0,\/x\/c-r0,0.25,4,/);
    const svg = await curveSvg(res);
    expect(svg).toMatch(/^<svg/);
    expect(svg).toContain("c2: init=off2on");
  });
});

describe("compare grid", () => {
  const base = { levels: ["down_to_earth"], agent: "heuristic", evolver: "heuristic", rounds: 1, episodesPerRound: 2 };
  const all = families.all();

  it("parses YAML scalars, builds the product in order, and keeps refused cells as skipped", () => {
    expect(parseGridFlag("retriever.topSkills=0, 6")).toEqual({ key: "retriever.topSkills", values: [0, 6] });
    expect(parseGridFlag("bank.rewardLabels=true,false").values).toEqual([true, false]);
    const axes = [parseGridFlag("init=offline,off2on"), parseGridFlag("update=evolving,static")];
    checkAxes(base, axes, all);
    const cells = gridCells(base, axes);
    expect(cells.map((c) => c.label)).toEqual([
      "init=offline, update=evolving",
      "init=offline, update=static",
      "init=off2on, update=evolving",
      "init=off2on, update=static",
    ]);
    const first = cellConfig(cells[0]!, all);
    expect(first).toEqual({ skipped: expect.stringContaining("offline initialisation freezes the bank") });
    expect(cellConfig(cells[1]!, all)).toMatchObject({ cfg: { init: "offline", update: "static", seed: 0 } });
  });

  it("refuses unknown keys, refused values and keys compare owns, naming the key", () => {
    const refuse = (flag: string) => () => checkAxes(base, [parseGridFlag(flag)], all);
    expect(refuse("retriever.topSkillz=1,2")).toThrow(/--grid retriever.topSkillz: not a config key; known under retriever: .*topSkills/);
    expect(refuse("nope=1")).toThrow(/--grid nope: not a config key/);
    expect(refuse("rounds.x=1")).toThrow(/--grid rounds.x: rounds is not a section/);
    expect(refuse("actor.maxTurns=12,0")).toThrow(/--grid actor.maxTurns: the value 0 is refused/);
    expect(refuse("init=off2on,sideways")).toThrow(/--grid init: the value "sideways" is refused/);
    expect(refuse("seed=1,2")).toThrow(/--grid seed: cannot be gridded/);
    expect(refuse("seeds.offset=0,10")).toThrow(/pairing/);
    expect(() => parseGridFlag("init")).toThrow(/expected KEY=V1,V2/);
    expect(() => parseGridFlag("init=a,,b")).toThrow(/empty value/);
    expect(() => checkAxes(base, [parseGridFlag("init=online"), parseGridFlag("init=off2on")], all)).toThrow(/given twice/);
  });

  it("grids an LLM role's fields, those of the role's provider as the base config sets it", () => {
    expect(() => checkAxes(base, [parseGridFlag("llm.actor.model=gpt-4.1,gpt-4.1-mini"), parseGridFlag("llm.evolver.temperature=0,1")], all)).not.toThrow();
    const refuse = (b: Record<string, unknown>, flag: string) => () => checkAxes(b, [parseGridFlag(flag)], all);
    expect(refuse(base, "llm.actor.gpuLayers=0,8")).toThrow(/--grid llm.actor.gpuLayers: not a config key; known under llm.actor: provider, model, baseURL/);
    const embedded = { ...base, llm: { actor: { provider: "llama-cpp", model: "m.gguf" } } };
    expect(refuse(embedded, "llm.actor.gpuLayers=0,8")).not.toThrow();
    expect(refuse(embedded, "llm.actor.baseURL=http://a.test/v1")).toThrow(
      /--grid llm.actor.baseURL: not a config key; known under llm.actor: provider, model, contextSize/,
    );
  });
});
