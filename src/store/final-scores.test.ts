import { cpSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError } from "../errors.ts";
import { headlineBySeed, readFinalScores, writeFinalScores, type FinalScore } from "./final-scores.ts";

const FIXTURE = join(import.meta.dirname, "../../test/fixtures/final-scores-v2");
const dir = () => mkdtempSync(join(tmpdir(), "hexa-final-scores-"));

const level: FinalScore = {
  level: "cartpole",
  measure: "m",
  headline: "fitness",
  figures: { fitness: { label: "F", mean: 2, std: 1, ci95: [1, 3], n: 3 }, other: { label: "x", mean: null, n: 3, why: "undefined here" } },
  perSeed: [
    { seed: 7, fitness: 1 },
    { seed: 8, fitness: 2 },
    { seed: 9, fitness: null },
  ],
  spent: 4,
  detail: {},
};

describe("final-scores.json", () => {
  it("schema 3 round-trips: named figures (a null one with its why), every measurement, the headline by seed", () => {
    const d = dir();
    writeFinalScores(d, [level]);
    const [l] = readFinalScores(d)!.levels;
    expect(l).toEqual(level);
    expect([...headlineBySeed(l!)]).toEqual([
      [7, 1],
      [8, 2],
      [9, null],
    ]);
  });

  it("a schema-2 file (one normalised score per level) still reads: its score the headline, F a figure, every seed kept", () => {
    const d = dir();
    cpSync(FIXTURE, d, { recursive: true });
    const [l] = readFinalScores(d)!.levels;
    expect(l!.headline).toBe("score");
    expect(l!.figures.score).toMatchObject({ mean: 12.353333333333333, std: 19.05, ci95: [1, 34.34], n: 3 });
    expect(l!.figures.raw).toMatchObject({ label: "F", mean: 92.97, n: 3 });
    expect(l!.perSeed.map((p) => [p.seed, p.fitness, p.score])).toEqual([
      [1000064, 92.8, 1],
      [1000072, 93.2, 34.34],
      [1000080, 92.91, 1.72],
    ]);
  });

  it("a schema-3 file whose headline names none of its figures is refused by path, as is a file that is not JSON", () => {
    const d = dir();
    writeFileSync(join(d, "final-scores.json"), JSON.stringify({ schemaVersion: 3, levels: [{ ...level, headline: "score" }] }));
    expect(() => readFinalScores(d)).toThrow(ConfigError);
    expect(() => readFinalScores(d)).toThrow(/final-scores\.json: not a final-scores file this hexa reads \(headline names none of figures\)/);
    writeFileSync(join(d, "final-scores.json"), '{"schemaVersion": 3, "levels": [');
    expect(() => readFinalScores(d)).toThrow(ConfigError);
    expect(() => readFinalScores(d)).toThrow(/final-scores\.json: not JSON/);
  });
});
