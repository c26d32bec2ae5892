import { existsSync, readdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { tinyRewardConfig } from "../support/tiny-reward-run.ts";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { hexa } from "../support/hexa-cli.ts";
import { tempDirs } from "../support/temp-files.ts";
import { searchArgs } from "../verify/verify-support.ts";
import { bundleWithoutKeptTrainings, hexaElsewhere, namesIn, verifiesElsewhere } from "./clean-machine.ts";
import { tinyRun } from "./tiny-run.ts";

/**
 * Every kind of bundle verifies on a machine that has only the bundle: `hexa verify` started from an empty
 * folder, with no cache, config or key of the author's and a HOME of its own, and leaving both folders empty.
 */

const temp = tempDirs("hexa-bundle-elsewhere-");

const bundleOf = async (dir: string): Promise<string> => {
  const out = join(temp(), "bundle.tar.gz");
  const r = await hexa(["bundle", dir, "-o", out]);
  expect(r.status, r.stderr).toBe(0);
  return out;
};

/** A tiny reward-search run config (cartpole, one episode of 3 turns, trainings of 1024 and 2048 steps) leaving the trainer folders unset. */
const rewardConfig = (dir: string): string => {
  const path = join(dir, "rs.yaml");
  writeFileSync(path, tinyRewardConfig());
  return path;
};

describe("a bundle verified from an empty folder on a clean machine", () => {
  it("an Interphyre run", async () => {
    const { runDir } = await tinyRun(temp());
    await verifiesElsewhere(await bundleOf(runDir), /^identical: \d+ episodes/);
  }, 180_000);

  it("the second of two identical reward-search runs, every training of which the trainer cache answered", async () => {
    const dir = temp();
    const cfg = rewardConfig(dir);
    const runs = join(dir, "runs");
    const cwd = temp();
    const first = await hexaElsewhere(["run", cfg, "--runs-dir", runs], cwd);
    expect(first.status, first.stderr).toBe(0);
    const second = await hexaElsewhere(["run", cfg, "--runs-dir", runs], cwd);
    expect(second.status, second.stderr).toBe(0);
    // The trainer cache and jobs follow the runs folder, not the folder hexa was started in.
    expect(namesIn(cwd)).toEqual([]);
    expect(readdirSync(join(runs, ".trainer-cache")).length).toBeGreaterThan(0);
    const [, later] = readdirSync(runs)
      .filter((n) => !n.startsWith("."))
      .sort();
    const episodes = readFileSync(join(runs, later!, "episodes.jsonl"), "utf8");
    expect(episodes).toMatch(/Trained [\d,]+ steps \(cached: this exact training ran before\)/);
    expect(episodes).not.toMatch(/Trained [\d,]+ steps(?! \(cached)/);
    const bundle = await bundleOf(join(runs, later!));
    renameSync(join(runs, ".trainer-cache"), join(dir, "cache-away"));
    expect(await verifiesElsewhere(bundle, /^identical: .* \d+ trainings checked/)).toBeGreaterThanOrEqual(4);
    // Without the entries the run keeps, and its trainer cache gone, the bundle would verify nowhere: refused.
    const refused = await bundleWithoutKeptTrainings(join(runs, later!), temp());
    expect(refused.status, refused.stderr + refused.stdout).toBe(2);
    expect(refused.stderr).toMatch(/the results of its trainings are neither in the run \(no trainer-cache\/.*\) nor in its trainer cache \S+\.trainer-cache/);
    expect(existsSync(refused.out)).toBe(false);
  }, 300_000);

  it("a hexa search", async () => {
    const dir = temp();
    const search = join(dir, "search");
    const made = await hexa(searchArgs(search, join(dir, "cache")));
    expect(made.status, made.stderr).toBe(0);
    const bundle = await bundleOf(search);
    renameSync(join(dir, "cache"), join(dir, "cache-away"));
    await verifiesElsewhere(bundle, /^identical: /);
  }, 300_000);

  it("a hexa compare grid: every run and the results table", async () => {
    const dir = temp();
    const cfg = join(dir, "tiny.yaml");
    writeFileSync(cfg, "levels: [down_to_earth]\nagent: heuristic\nevolver: heuristic\nrounds: 1\nepisodesPerRound: 1\noffline: {episodes: 1}\n");
    const grid = join(dir, "compare", "tiny");
    const made = await hexa(["compare", cfg, "--grid", "init=off2on,online", "--runs", "1", "--heldout", "1", "--out", grid]);
    expect(made.status, made.stderr).toBe(0);
    const bundle = await bundleOf(grid);
    const tar = gunzipSync(readFileSync(bundle)).toString("latin1");
    expect(tar).toContain("tiny/results.json");
    expect(tar).toContain("tiny/compare.json");
    expect(existsSync(join(grid, "runs"))).toBe(true);
    await verifiesElsewhere(bundle, /^identical: 2 runs, /);
  }, 400_000);
});
