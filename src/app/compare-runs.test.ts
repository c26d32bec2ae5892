import { describe, expect, it } from "vitest";
import { toyFamily } from "../../examples/toy-family/family.ts";
import { tempDirs } from "../../test/support/temp-files.ts";
import type { LevelFamily } from "../family/family.ts";
import { parseRunConfig, runConfigYaml } from "../loop/run-config.ts";
import { runLoop } from "../loop/run-loop.ts";
import { type FinalScore, writeFinalScores } from "../store/final-scores.ts";
import { RunDir } from "../store/run-dir.ts";
import { finished } from "./compare-runs.ts";

const tmp = tempDirs("hexa-compare-runs-");

const score: FinalScore = {
  level: "guess_small",
  measure: "turns to guess",
  headline: "turns",
  figures: { turns: { label: "turns", mean: 3, n: 1 } },
  perSeed: [{ seed: 0, turns: 3 }],
  spent: 1,
  detail: {},
};

/** The toy family with final scores after its rounds, as reward search gives them; `due` says for which configs. */
const scoring = (due?: boolean): LevelFamily => ({
  ...toyFamily(),
  search: {
    searchFor: () => undefined,
    finalScores: async () => [score],
    ...(due === undefined ? {} : { finalScoresDue: () => due }),
  },
});

/** A toy run whose rounds all finished (episodes, bank updates, metrics) and whose final scores were never written. */
const roundsDone = async () => {
  const cfg = parseRunConfig(
    { family: "toy", levels: ["guess_small"], rounds: 1, agent: "heuristic", evolver: "heuristic", toy: { size: 8 } },
    "compare-runs",
    [toyFamily()],
  );
  const dir = RunDir.create(tmp(), "run", runConfigYaml(cfg), new Date(0));
  await runLoop(cfg, { family: toyFamily(), dir, now: () => 0 });
  return { cfg, dir };
};

describe("a compared run is finished", () => {
  it("when its rounds are done, for a family without final scores", async () => {
    const { cfg, dir } = await roundsDone();
    expect(finished(dir, cfg, toyFamily())).toBe(true);
  });

  it("only once its final scores are written, when the family gives the run some (a kill during the final trainings)", async () => {
    const { cfg, dir } = await roundsDone();
    expect(finished(dir, cfg, scoring(true))).toBe(false);
    expect(finished(dir, cfg, scoring())).toBe(false);
    writeFinalScores(dir.path, [score]);
    expect(finished(dir, cfg, scoring(true))).toBe(true);
  });

  it("without final scores when the family gives this config none", async () => {
    const { cfg, dir } = await roundsDone();
    expect(finished(dir, cfg, scoring(false))).toBe(true);
  });
});
