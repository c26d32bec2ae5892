import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDirs } from "../../test/support/temp-files.ts";
import { compareOtherRecords } from "./compare-records.ts";

const temp = tempDirs("hexa-verify-held-");

/** A run directory's records: metrics.json and a bank snapshot, as a recorded run and its replay both have them. */
const records = (): string => {
  const dir = temp();
  mkdirSync(join(dir, "banks"));
  writeFileSync(join(dir, "metrics.json"), '{"run":"x","successRate":0.5}\n');
  writeFileSync(join(dir, "banks", "round-01.json"), '{"schemaVersion":1,"round":1,"banks":{}}\n');
  return dir;
};

describe("hexa verify and the spool of held episodes (docs/ARCHITECTURE.md §6)", () => {
  it("ignores held/ of a run killed before it wrote them: the replay writes no spool, and that is no divergence", () => {
    const recorded = records();
    mkdirSync(join(recorded, "held"));
    writeFileSync(join(recorded, "held", "stream%2Fdown_to_earth%2Fr2%2Fs7.json"), '{"schemaVersion":1}\n');
    expect(compareOtherRecords(recorded, records())).toBeUndefined();
  });

  it("still compares the run's other records", () => {
    const recorded = records();
    const replayed = records();
    writeFileSync(join(replayed, "banks", "round-01.json"), '{"schemaVersion":1,"round":1,"banks":{"a":{}}}\n');
    expect(compareOtherRecords(recorded, replayed)?.what).toBe("banks/round-01.json");
  });
});
