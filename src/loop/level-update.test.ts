import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { LevelFamily } from "../family/family.ts";
import { checkRecordedBank } from "../store/bank-check.ts";
import { RunDir, updateKey } from "../store/run-dir.ts";
import { readCertified } from "../../levels/interphyre/certified-seeds.ts";
import { interphyreFamily } from "../../levels/interphyre/family.ts";
import { parseRunConfig, runConfigYaml } from "./run-config.ts";
import { runLoop } from "./run-loop.ts";

/**
 * A bank update whose entries the bank's reader refuses is never written (docs/security.md): written, it would
 * leave a run that `hexa bank show`, `hexa eval` and `--resume` all refuse to read.
 */

const LEVEL = "two_body_problem";
const interphyre = interphyreFamily((level) => readCertified(level)!.seeds.map((s) => s.seed));
/** Interphyre whose heuristic evolver writes a region no episode can sample (x offsets of ±1e308). */
const corrupting: LevelFamily = {
  ...interphyre,
  heuristics: {
    ...interphyre.heuristics!,
    evolve: (o) =>
      interphyre
        .heuristics!.evolve(o)
        .map((e) => (e.type === "add" ? { ...e, entry: { ...e.entry, payload: { region: { relativeTo: "world", dx: [-1e308, 1e308], dy: [0, 1] } } } } : e)),
  },
};
const roots: string[] = [];
afterAll(() => roots.forEach((r) => rmSync(r, { recursive: true, force: true })));

describe("a bank update the bank's reader would refuse", () => {
  it("stops the run naming the entry and the field, and writes nothing of it: the run's bank still reads", async () => {
    const cfg = parseRunConfig(
      { family: "interphyre", levels: [LEVEL], agent: "heuristic", evolver: "heuristic", init: "online", rounds: 1, episodesPerRound: 2 },
      "cfg",
    );
    const root = mkdtempSync(join(tmpdir(), "hexa-update-check-"));
    roots.push(root);
    const dir = RunDir.create(root, "run", runConfigYaml(cfg), new Date(0));
    await expect(runLoop(cfg, { family: corrupting, dir, now: () => 0 })).rejects.toThrow(
      /two_body_problem round 1: the bank update's add of (skill|mistake) '[^']+': payload\.region\.dx: must lie inside \[-10, 10\].*; the update was not written, so the run's bank stays readable/,
    );
    const log = dir.bankLog();
    expect(log.done.has(updateKey(LEVEL, 1))).toBe(false);
    expect(() => checkRecordedBank("bank-events.jsonl", log.events, interphyre.heuristics?.payload)).not.toThrow();
  });
});
