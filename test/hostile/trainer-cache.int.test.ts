import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { TrainCache } from "../../levels/reward-search/trainer/cache.ts";
import type { JobOutcome, TrainJob } from "../../levels/reward-search/trainer/client.ts";
import { createTrainerPool, type TrainerPool } from "../../levels/reward-search/trainer/pool.ts";

/** Pairs of reward code that a whitespace-and-comment normaliser could take for one, but that mean different things. */
const PAIRS: ReadonlyArray<readonly [string, string, string]> = [
  ["a regex literal holding `//`", "/\\/\\//; var k = 1;", "/\\/\\//; var k = 1000;"],
  ["U+2028, a line terminator (ASI), against a space (a syntax error)", "var a = 1\u2028var b = 2", "var a = 1 var b = 2"],
  ["U+2029, a line terminator, against a space", "var a = 1\u2029var b = 2", "var a = 1 var b = 2"],
  ["a lone \\r (return returns nothing) against a space (returns 1)", "return\r1", "return 1"],
];

const job = (reward: string): TrainJob => ({ task: "cartpole", instance: 0, reward, steps: 2048, seed: 1, evalSeeds: [2, 3, 4], jobDir: "/tmp/j" });
const trainer = { name: "fake", version: "1" };
const resultWith = (fitness: number): JobOutcome => ({
  kind: "result",
  result: {
    final: { fitness, perSeed: [2, 3, 4].map((seed) => ({ seed, fitness })) },
    bestCheckpoint: { fitness, step: 2048 },
    components: {},
    episodeLength: [],
    fitnessCurve: [],
    steps: 2048,
    wallMs: 1,
    policy: "/tmp/j/policy.json",
  },
});

describe("the trainer cache never answers one code with another code's result", () => {
  it.each(PAIRS)("%s", (_what, first, second) => {
    const cache = new TrainCache(mkdtempSync(join(tmpdir(), "hexa-hostile-cache-")));
    expect(cache.put(job(first), trainer, resultWith(91))).toBe(true);
    expect(cache.get(job(second), trainer)).toBeUndefined();
    expect(cache.put(job(second), trainer, resultWith(5))).toBe(true);
    expect(cache.get(job(first), trainer)).toEqual(resultWith(91));
    expect(cache.get(job(second), trainer)).toEqual(resultWith(5));
  });
});

const fake = fileURLToPath(new URL("../../levels/reward-search/trainer/fixtures/fake-trainer.ts", import.meta.url));
const pools: TrainerPool[] = [];
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.close()));
});

describe("a pool with a cache, given valid code and then its syntax-error twin", () => {
  it("trains the twin and reports its fault, instead of answering it with the valid code's cached F", async () => {
    const root = mkdtempSync(join(tmpdir(), "hexa-hostile-pool-"));
    const pool = createTrainerPool({
      command: [process.execPath, "--import", "tsx", fake, "ok"],
      jobsDir: join(root, "jobs"),
      cacheDir: join(root, "cache"),
      size: 1,
      startTimeoutMs: 20_000,
    });
    pools.push(pool);
    const at = (reward: string) => ({ task: "fake", instance: 0, reward, steps: 200, seed: 1, evalSeeds: [2, 3, 4] });
    const valid = await pool.train(at("var a = 1\u2028var b = 2"));
    expect(valid).toMatchObject({ kind: "result", cached: false });
    const twin = await pool.train(at("var a = 1 var b = 2"));
    expect(twin).toMatchObject({ kind: "error", cached: false, error: { kind: "reward_code" } });
    expect(pool.sent).toBe(2);
  });
});
