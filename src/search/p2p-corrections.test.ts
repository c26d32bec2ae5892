import { appendFileSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError } from "../errors.ts";
import {
  addCorrection,
  addressedProblem,
  CORRECTIONS_FILE,
  correctionsForJudges,
  MAX_CORRECTION_CHARS,
  MAX_CORRECTIONS,
  outstandingCorrections,
  PLANNING_LOCK,
  readCorrections,
  type CorrectionRecord,
} from "./p2p-corrections.ts";

const NOW = new Date("2026-12-07T02:00:00.000Z");

/** A search directory with `plans` plans and `done` finished iterations (only their iteration numbers matter here). */
const searchDir = (plans: number, done: number): string => {
  const dir = mkdtempSync(join(tmpdir(), "hexa-corrections-"));
  const lines = (n: number) => Array.from({ length: n }, (_, i) => `${JSON.stringify({ iteration: i })}\n`).join("");
  writeFileSync(join(dir, "plans.jsonl"), lines(plans));
  writeFileSync(join(dir, "iterations.jsonl"), lines(done));
  return dir;
};

const record = (o: Partial<CorrectionRecord> = {}): CorrectionRecord => ({
  schemaVersion: 1,
  index: 0,
  iteration: 2,
  afterIteration: 1,
  text: "land softer",
  at: NOW.toISOString(),
  ...o,
});

const fileWith = (...lines: string[]): string => {
  const dir = searchDir(2, 2);
  writeFileSync(join(dir, CORRECTIONS_FILE), lines.join(""));
  return dir;
};

describe("corrections: the record", () => {
  it("records which iteration it came after, the first plan that must address it, its words and when; appended in order", () => {
    const dir = searchDir(3, 2);
    const a = addCorrection(dir, "  land softer\n", NOW);
    expect(a).toEqual({ schemaVersion: 1, index: 0, iteration: 3, afterIteration: 1, text: "land softer", at: "2026-12-07T02:00:00.000Z" });
    addCorrection(dir, "keep the torso upright", NOW);
    expect(readCorrections(dir).map((c) => [c.index, c.text])).toEqual([
      [0, "land softer"],
      [1, "keep the torso upright"],
    ]);
    // One flushed line per correction, nothing else: no lock left behind.
    expect(readFileSync(join(dir, CORRECTIONS_FILE), "utf8").split("\n")).toHaveLength(3);
    expect(existsSync(join(dir, PLANNING_LOCK))).toBe(false);
  });

  it("says none had finished when the user corrects a search killed in its first iteration", () => {
    expect(addCorrection(searchDir(1, 0), "jump higher", NOW)).toMatchObject({ iteration: 1, afterIteration: null });
  });

  it("refuses empty, too long or control-character words, a search with no plan, and more than the most", () => {
    const dir = searchDir(2, 2);
    expect(() => addCorrection(dir, "   ", NOW)).toThrow(/--correct: empty/);
    expect(() => addCorrection(dir, "x".repeat(MAX_CORRECTION_CHARS + 1), NOW)).toThrow(
      `--correct: ${MAX_CORRECTION_CHARS + 1} characters; at most ${MAX_CORRECTION_CHARS}`,
    );
    expect(() => addCorrection(dir, "a\u001b[2Jb", NOW)).toThrow(/control character/);
    expect(() => addCorrection(searchDir(0, 0), "land softer", NOW)).toThrow(/no iteration of this p2p search was planned yet/);
    for (let i = 0; i < MAX_CORRECTIONS; i++) addCorrection(dir, `c${i}`, NOW);
    expect(() => addCorrection(dir, "one more", NOW)).toThrow(`already ${MAX_CORRECTIONS} corrections`);
    expect(readCorrections(dir)).toHaveLength(MAX_CORRECTIONS);
  });

  it("is refused while a live process plans the search's next iteration (it holds the planning lock)", () => {
    const dir = searchDir(2, 2);
    writeFileSync(join(dir, PLANNING_LOCK), `${process.ppid}\n`);
    expect(() => addCorrection(dir, "land softer", NOW)).toThrow(`the search is planning its next iteration (process ${process.ppid})`);
    expect(existsSync(join(dir, CORRECTIONS_FILE))).toBe(false);
  });
});

describe("corrections: read as a stranger's file", () => {
  const line = (o: Partial<CorrectionRecord> = {}) => `${JSON.stringify(record(o))}\n`;

  it("refuses a half-written last record, naming the file and line, instead of dropping it", () => {
    const dir = fileWith(line(), line({ index: 1 }).slice(0, 30));
    expect(() => readCorrections(dir)).toThrow(`${join(dir, CORRECTIONS_FILE)}:2: a record cut short`);
    // Read only: the file is left as it was.
    expect(readFileSync(join(dir, CORRECTIONS_FILE), "utf8")).toBe(line() + line({ index: 1 }).slice(0, 30));
  });

  it("refuses a bad field, an unknown field, words out of bounds, and records out of order, each naming its line", () => {
    const path = (dir: string) => join(dir, CORRECTIONS_FILE);
    let dir = fileWith(line(), line({ index: 1, at: "yesterday" }));
    expect(() => readCorrections(dir)).toThrow(`${path(dir)}:2: at:`);
    dir = fileWith(`${JSON.stringify({ ...record(), run: "rm -rf /" })}\n`);
    expect(() => readCorrections(dir)).toThrow(`${path(dir)}:1: (record): Unrecognized key: "run"`);
    dir = fileWith(line({ text: "y".repeat(MAX_CORRECTION_CHARS + 1) }));
    expect(() => readCorrections(dir)).toThrow(`${path(dir)}:1: text: ${MAX_CORRECTION_CHARS + 1} characters`);
    dir = fileWith(line(), line());
    expect(() => readCorrections(dir)).toThrow(`${path(dir)}:2: index: 0, but it is correction 1 of the file`);
    dir = fileWith(line({ iteration: 3 }), line({ index: 1, iteration: 2 }));
    expect(() => readCorrections(dir)).toThrow(`${path(dir)}:2: iteration: 2 comes after a correction for iteration 3`);
    dir = fileWith(line({ iteration: 2, afterIteration: 2 }));
    expect(() => readCorrections(dir)).toThrow(`${path(dir)}:1: afterIteration: 2 is not before its iteration 2`);
    dir = fileWith("{not json\n");
    expect(() => readCorrections(dir)).toThrow(`${path(dir)}:1: not valid JSON`);
  });

  it("refuses a file larger than any hexa writes before reading it, and more records than a search takes", () => {
    let dir = fileWith(line());
    appendFileSync(join(dir, CORRECTIONS_FILE), " ".repeat(200_000));
    expect(() => readCorrections(dir)).toThrow(ConfigError);
    expect(() => readCorrections(dir)).toThrow(/bytes; a corrections file holds at most/);
    dir = fileWith(...Array.from({ length: MAX_CORRECTIONS + 1 }, (_, i) => line({ index: i })));
    expect(() => readCorrections(dir)).toThrow(`${MAX_CORRECTIONS + 1} corrections; a search takes at most ${MAX_CORRECTIONS}`);
  });
});

describe("corrections: which a plan must address", () => {
  const c0 = record({ index: 0, iteration: 2 });
  const c1 = record({ index: 1, iteration: 4, text: "jump higher" });
  const plan = (iteration: number, corrections?: { correction: number; how: string; addressed: boolean }[]) => ({
    iteration,
    revision: corrections ? { corrections } : {},
  });

  it("from the iteration it was added for, until a plan addressed it; a plan that could not read it leaves it outstanding", () => {
    expect(outstandingCorrections([c0, c1], [plan(0), plan(1)], 1)).toEqual([]);
    expect(outstandingCorrections([c0, c1], [plan(0), plan(1)], 2)).toEqual([c0]);
    expect(outstandingCorrections([c0, c1], [plan(0), plan(1), plan(2, [{ correction: 0, how: "softer", addressed: true }]), plan(3)], 4)).toEqual([c1]);
    const unread = [plan(0), plan(1), plan(2, [{ correction: 0, how: "cannot read words", addressed: false }])];
    expect(outstandingCorrections([c0], unread, 3)).toEqual([c0]);
  });

  it("holds an answer to every outstanding correction, once each, with words", () => {
    expect(addressedProblem([], [])).toBeNull();
    expect(addressedProblem([{ correction: 0, how: "halved the landing impact weight" }], [c0])).toBeNull();
    expect(addressedProblem([], [c0, c1])).toBe("corrections: corrections 0, 1 not addressed; say how this revision addresses each");
    expect(addressedProblem([{ correction: 1, how: "x" }], [c0])).toBe("corrections: correction 1 is not one to address now; answer 0");
    expect(addressedProblem([{ correction: 0, how: " " }], [c0])).toBe("corrections: correction 0: say how the revision addresses it");
    expect(
      addressedProblem(
        [
          { correction: 0, how: "a" },
          { correction: 0, how: "b" },
        ],
        [c0],
      ),
    ).toBe("corrections: correction 0 answered twice");
  });

  it("reads to the judges as every correction so far, in order, with the iteration each came after", () => {
    expect(correctionsForJudges([])).toBe("");
    expect(correctionsForJudges([c0, { text: 'jump "higher"', afterIteration: null }])).toBe(
      [
        "Corrections from the user, given after watching earlier results. They refine what the behaviour wanted means; where one conflicts with an earlier wording, the later correction wins:",
        '1. "land softer" (after iteration 1)',
        '2. "jump \\"higher\\""',
      ].join("\n"),
    );
  });
});
