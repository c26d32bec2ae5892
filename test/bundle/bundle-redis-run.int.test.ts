import type { ChildProcess } from "node:child_process";
import { tinyRewardConfig } from "../support/tiny-reward-run.ts";
import { existsSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hexa, spawnHexa } from "../support/hexa-cli.ts";
import { startRedis, type RedisServer } from "../support/redis-server.ts";
import { tempDirs } from "../support/temp-files.ts";
import { bundleWithoutKeptTrainings, verifiesElsewhere } from "./clean-machine.ts";

/**
 * A reward-search run whose episodes and trainings `hexa worker` processes played through Redis leaves no trainer
 * cache entry on the coordinator's machine: the coordinator keeps each training in the run's trainer-cache/ from
 * the episode's checked, signed result, so its bundle verifies from an empty folder on a clean machine; a run
 * that lacks them is not bundled.
 */

const temp = tempDirs("hexa-bundle-redis-");
let redis: RedisServer;
const live = new Set<ChildProcess>();

beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  for (const c of live) c.kill("SIGKILL");
  await redis?.kill();
});

/** A worker of one queue, its folders under `runs`; resolves once it is connected. */
const worker = async (queue: string, runs: string): Promise<ChildProcess> => {
  let err = "";
  const p = spawnHexa(["worker", "--redis", redis.url, "--queues", queue, "--runs-dir", runs], { onStderr: (s) => (err = s) });
  live.add(p.child);
  const t0 = Date.now();
  while (!err.includes(" at once per queue")) {
    if (Date.now() - t0 > 20_000 || p.child.exitCode !== null) throw new Error(`worker did not start: ${err}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return p.child;
};

describe("a reward-search run played by Redis workers", () => {
  it("bundles every training it used, and the bundle verifies from an empty folder", async () => {
    const dir = temp();
    const cfg = join(dir, "rs.yaml");
    writeFileSync(cfg, tinyRewardConfig());
    const workers = join(dir, "worker-runs");
    await Promise.all([worker("episodes", workers), worker("trainings", workers)]);
    const runs = join(dir, "runs");
    const made = await hexa(["run", cfg, "--runs-dir", runs, "--backend", redis.url]);
    expect(made.status, made.stderr).toBe(0);
    // Nothing was trained on this machine: every training's result came back through Redis.
    expect(existsSync(join(runs, ".trainer-cache"))).toBe(false);
    const [run] = readdirSync(runs).filter((n) => !n.startsWith("."));
    const kept = readdirSync(join(runs, run!, "trainer-cache"));
    expect(kept.length).toBeGreaterThanOrEqual(4);
    const bundle = join(temp(), "bundle.tar.gz");
    const packed = await hexa(["bundle", join(runs, run!), "-o", bundle]);
    expect(packed.status, packed.stderr).toBe(0);
    expect(await verifiesElsewhere(bundle, /^identical: .* \d+ trainings checked/)).toBeGreaterThanOrEqual(4);
    // The same run without the trainings its coordinator kept (as workers that hand none back leave it): refused.
    const refused = await bundleWithoutKeptTrainings(join(runs, run!), temp());
    expect(refused.status).toBe(2);
    expect(refused.stderr).toMatch(/its records name \d+ trainings, but the results of its trainings are neither in the run \(no trainer-cache\//);
    expect(existsSync(refused.out)).toBe(false);
  }, 240_000);
});
