import { readdirSync, writeFileSync } from "node:fs";
import { tinyRewardConfig } from "./support/tiny-reward-run.ts";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { hexaElsewhere, namesIn } from "./bundle/clean-machine.ts";
import { tempDirs } from "./support/temp-files.ts";

const temp = tempDirs("hexa-eval-cache-");

describe("hexa eval of a reward-search run", () => {
  it("keeps its held-out trainings' cache beside the run, in its runs folder, not in the folder it was started in", async () => {
    const dir = temp();
    const cfg = join(dir, "rs.yaml");
    writeFileSync(cfg, tinyRewardConfig());
    const runs = join(dir, "runs");
    const made = await hexaElsewhere(["run", cfg, "--runs-dir", runs], temp());
    expect(made.status, made.stderr).toBe(0);
    const [run] = readdirSync(runs).filter((n) => !n.startsWith("."));
    const before = readdirSync(join(runs, ".trainer-cache")).length;
    const evaluated = await hexaElsewhere(["eval", join(runs, run!), "--count", "1"]);
    expect(evaluated.status, evaluated.stderr).toBe(0);
    expect(namesIn(evaluated.cwd)).toEqual([]);
    expect(readdirSync(join(runs, ".trainer-cache")).length).toBeGreaterThan(before);
    // An evaluation only reads the run: its trainings are not kept among the run's own.
    expect(readdirSync(join(runs, run!, "trainer-cache")).length).toBe(before);
  }, 240_000);
});
