import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { hexa } from "./support/hexa-cli.ts";
import { jsonlOf, tempDirs } from "./support/temp-files.ts";

/**
 * A correction from the user between iterations, end to end on a tiny heuristic p2p search (cartpole, one
 * configuration, one seed, one iteration): `hexa search --resume DIR --correct` records it, the finished search
 * goes on one iteration past its cap and says why, and the plan records that the heuristic reviser cannot read
 * words. The replay with the corrections read from the lineage: levels/reward-search/search/p2p-corrections-replay.test.ts.
 */
const tmp = tempDirs("hexa-p2p-corrections-");

describe("hexa search --resume DIR --correct on a p2p search", () => {
  it("records the correction and goes on past the stop to address it", async () => {
    const root = tmp();
    const out = join(root, "search");
    const cache = join(root, "cache");
    const first = await hexa([
      ...["search", "cartpole", "--strategy", "p2p", "--budget", "3", "--configs", "1", "--train-seeds", "1", "--max-iterations", "1"],
      ...["--train-steps", "1024", "--final-steps", "1024", "--final-trainings", "1", "--processes", "1", "--out", out, "--trainer-cache", cache],
    ]);
    expect(first.status, first.stderr).toBe(0);
    expect(first.stdout).toContain("1 iterations, 1 trainings");

    // Flags that shape the search are refused with --resume: they come from its record.
    const shaped = await hexa(["search", "--resume", out, "--budget", "9", "--correct", "land softer"]);
    expect(shaped.status).not.toBe(0);
    expect(shaped.stderr).toContain("--resume: the search goes on with the settings");
    expect(shaped.stderr).toContain("drop --budget");
    const file = join(root, "correction.txt");
    writeFileSync(file, "keep the cart near the centre\n");
    const resumed = await hexa(["search", "--resume", out, "--correct", "land softer", "--correct-file", file, "--processes", "1"]);
    expect(resumed.status, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain(`correction 0 added after iteration 0: "land softer"; iteration 1's reviser must address it`);
    expect(resumed.stderr).toContain(`correction 1 added after iteration 0: "keep the cart near the centre"`);
    expect(resumed.stderr).toContain("the search had reached its iteration cap; it goes on to iteration 1 only because corrections 0, 1 were added since");
    expect(resumed.stderr).toContain("correction 0 not addressed: not addressed: the heuristic reviser (no LLM) cannot read words");
    expect(resumed.stdout).toContain("2 iterations, 2 trainings (1 trained now)");
    const corrections = jsonlOf(join(out, "corrections.jsonl")) as { index: number; iteration: number; afterIteration: number; text: string }[];
    expect(corrections.map((c) => [c.index, c.iteration, c.afterIteration, c.text])).toEqual([
      [0, 1, 0, "land softer"],
      [1, 1, 0, "keep the cart near the centre"],
    ]);
    const plans = jsonlOf(join(out, "plans.jsonl")) as { revision: { corrections?: { correction: number; addressed: boolean }[] } }[];
    expect(plans[1]!.revision.corrections?.map((a) => [a.correction, a.addressed])).toEqual([
      [0, false],
      [1, false],
    ]);
    expect(JSON.parse(readFileSync(join(out, "search-config.json"), "utf8")).resumed).toBe(true);

    // The replay reads the corrections from the lineage, never asks for them, and comes out the same.
    const verified = await hexa(["verify", out, "--trainer-cache", cache]);
    expect(verified.stdout, verified.stderr).toMatch(/^identical: /);
  }, 240_000);
});
