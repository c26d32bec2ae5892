import { existsSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { hexa } from "./support/hexa-cli.ts";
import { tempDirs } from "./support/temp-files.ts";

/** A config whose offline inputs conflict with its stream is refused */

const temp = tempDirs("hexa-offline-conflict-");

const configWith = (dir: string, offline: string): string => {
  const path = join(dir, "conflict.yaml");
  writeFileSync(
    path,
    ["levels: [catapult]", "agent: heuristic", "evolver: heuristic", "init: offline", "update: static", "rounds: 2", "episodesPerRound: 3", offline, ""].join(
      "\n",
    ),
  );
  return path;
};

describe("hexa run with offline inputs learned on the stream's seeds", () => {
  it("refuses the shipped bank at seeds.offset 0, naming the bank's seeds and the stream's, and makes no run directory", async () => {
    const dir = temp();
    const runs = join(dir, "runs");
    const r = await hexa(["run", configWith(dir, "offline: { banks: [skills/banks/catapult.heuristic.json] }"), "--runs-dir", runs]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(
      /offline\.banks: catapult's bank was learned on seeds [\d, ]+, which this run's stream also plays \(seeds\.offset 0: stream seeds \d+–\d+\); raise seeds\.offset to 56 or more/,
    );
    expect(existsSync(runs) ? readdirSync(runs) : []).toEqual([]);
  }, 60_000);
});
