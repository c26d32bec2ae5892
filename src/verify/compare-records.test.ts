import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { compareOtherRecords } from "./compare-records.ts";

const root = mkdtempSync(join(tmpdir(), "hexa-compare-records-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

let made = 0;
/** A directory holding `files` (name → JSON value, or an array of JSON lines for a .jsonl file). */
const dirWith = (files: Record<string, unknown>): string => {
  const dir = join(root, String(made++));
  mkdirSync(dir);
  for (const [name, value] of Object.entries(files))
    writeFileSync(join(dir, name), name.endsWith(".jsonl") ? `${(value as unknown[]).map((v) => JSON.stringify(v)).join("\n")}\n` : JSON.stringify(value));
  return dir;
};

const candidate = (index: number, fitness: number) => ({ index, code: `// ${index}`, outcome: { kind: "result", fitness }, feedback: "ok" });
const scores = (human: number) => ({ schemaVersion: 3, levels: [{ level: "task_a", perSeed: [{ seed: 9, fitness: 2, human }] }] });

describe("compareOtherRecords on a search's records", () => {
  it("matches candidates by index, whatever order their evaluations ended in", () => {
    const record = dirWith({ "candidates.jsonl": [candidate(0, 1), candidate(1, 2)] });
    const replay = dirWith({ "candidates.jsonl": [candidate(1, 2), candidate(0, 1)] });
    expect(compareOtherRecords(record, replay)).toBeUndefined();
  });

  it("names a differing candidate by its index and field, and one the replay never evaluated", () => {
    const record = dirWith({ "candidates.jsonl": [candidate(0, 1), candidate(1, 2)] });
    expect(compareOtherRecords(record, dirWith({ "candidates.jsonl": [candidate(1, 3), candidate(0, 1)] }))).toEqual({
      what: "search candidate #1 (candidates.jsonl)",
      field: "outcome.fitness",
      recorded: "2",
      replayed: "3",
    });
    expect(compareOtherRecords(record, dirWith({ "candidates.jsonl": [candidate(0, 1)] }))).toEqual({
      what: "search candidate #1 (candidates.jsonl)",
      field: "(the candidate)",
      recorded: "evaluated",
      replayed: "never evaluated",
    });
  });

  it("names a differing final score by its level, the field inside it, and leaves the search record out", () => {
    const record = dirWith({ "final-scores.json": scores(5), "search-config.json": { settings: { seed: 1 } } });
    const replay = dirWith({ "final-scores.json": scores(6), "search-config.json": { settings: { seed: 2 } } });
    expect(compareOtherRecords(record, replay)).toEqual({
      what: "final score of task_a (final-scores.json)",
      field: "perSeed[0].human",
      recorded: "5",
      replayed: "6",
    });
    expect(compareOtherRecords(dirWith({ "search-config.json": { a: 1 } }), dirWith({}))).toBeUndefined();
  });
});
