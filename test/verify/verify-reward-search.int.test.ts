import { readdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tinyRewardConfig } from "../support/tiny-reward-run.ts";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { hexa } from "../support/hexa-cli.ts";
import { tempDirs } from "../support/temp-files.ts";
import { runIn } from "./verify-support.ts";

const tmp = tempDirs("hexa-verify-rs-");
let dir = "";
let run = "";

/** A tiny reward-search run (cartpole, two episodes of 3 turns, trainings of 1024 and 2048 steps) with its trainer cache beside it. */
beforeAll(async () => {
  dir = tmp();
  const cfg = join(dir, "rs.yaml");
  writeFileSync(cfg, tinyRewardConfig(`cacheDir: ${join(dir, "cache")}, jobsDir: ${join(dir, "jobs")}`));
  const r = await hexa(["run", cfg, "--runs-dir", join(dir, "runs")]);
  expect(r.status, r.stderr).toBe(0);
  run = runIn(join(dir, "runs"));
}, 180_000);

describe("hexa verify on a reward-search run", () => {
  it("answers its trainings from the recorded trainer cache, and --retrain 2 trains two again and matches their F exactly", async () => {
    const r = await hexa(["verify", run, "--retrain", "2", "--retrain-seed", "5", "--trainer-cache", join(dir, "cache")]);
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/retraining 2 of \d+ recorded trainings \(seed 5\) with the built-in trainer; F must match exactly/);
    const retrained = [...r.stderr.matchAll(/recorded F (\S+), retrained (\S+)/g)];
    expect(retrained).toHaveLength(2);
    for (const [, recorded, again] of retrained) expect(again).toBe(recorded);
    const [, episodes, trainings] = /^identical: (\d+) episodes, .* (\d+) trainings checked/.exec(r.stdout) ?? [];
    expect(Number(episodes)).toBe(2);
    expect(Number(trainings)).toBeGreaterThanOrEqual(4);
  }, 180_000);

  it("a bundle carries the run's trainer cache entries: it verifies with the cache gone from the machine", async () => {
    const bundle = join(tmp(), "rs.tar.gz");
    const packed = await hexa(["bundle", run, "-o", bundle]);
    expect(packed.status, packed.stderr).toBe(0);
    const cache = join(dir, "cache");
    const entries = readdirSync(cache).filter((n) => n.endsWith(".json")).length;
    renameSync(cache, `${cache}-away`);
    try {
      const r = await hexa(["verify", bundle]);
      expect(r.status, r.stderr).toBe(0);
      const [, trainings] = /^identical: .* (\d+) trainings checked/.exec(r.stdout) ?? [];
      expect(Number(trainings)).toBeGreaterThanOrEqual(4);
      expect(entries).toBeGreaterThan(0);
    } finally {
      renameSync(`${cache}-away`, cache);
    }
  }, 240_000);

  it("a training whose entry the run no longer keeps cannot be verified (exit 2), naming where the run keeps them", async () => {
    const kept = join(run, "trainer-cache");
    const [first] = readdirSync(kept).filter((n) => n.endsWith(".json"));
    rmSync(join(kept, first!));
    const r = await hexa(["verify", run]);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain(`${kept}: no recorded result for a cartpole training`);
  }, 180_000);
});
