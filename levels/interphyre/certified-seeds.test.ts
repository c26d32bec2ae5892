import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readCertifiedSeeds } from "./certified-seed-list.ts";
import { readCertified } from "./certified-seeds.ts";
import { listLevels } from "./levels/index.ts";

describe("readCertifiedSeeds", () => {
  it("gives every level's seeds in readCertified's order", () => {
    for (const level of listLevels()) expect(readCertifiedSeeds(level), level).toEqual(readCertified(level)!.seeds.map((s) => s.seed));
  });

  it("gives none for a level never certified, and names the file of a malformed one", () => {
    const dir = mkdtempSync(join(tmpdir(), "hexa-certified-"));
    expect(readCertifiedSeeds("catapult", dir)).toEqual([]);
    writeFileSync(join(dir, "catapult.json"), JSON.stringify({ seeds: [{ seed: 3 }, { seed: "4" }] }));
    expect(() => readCertifiedSeeds("catapult", dir)).toThrow(
      /catapult\.json: seeds: expected a list of \{seed: integer ≥ 0, …\}; re-run hexa levels certify catapult/,
    );
  });
});
