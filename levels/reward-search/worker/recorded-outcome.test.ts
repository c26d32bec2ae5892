import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { readCacheEntry } from "../trainer/cache.ts";
import type { JobResult } from "../trainer/client.ts";
import type { PoolJob, PoolOutcome } from "../trainer/pool.ts";
import { recordRemoteOutcome } from "./recorded-outcome.ts";

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), "hexa-recorded-outcome-"));
  dirs.push(d);
  return d;
};

const job: PoolJob = { task: "cartpole", instance: 3, reward: "r", steps: 2048, seed: 1, evalSeeds: [2, 3, 4] };
const trainer = { name: "hexa-ppo", version: "1" };
const result = (fitness: number): JobResult => ({
  final: { fitness, perSeed: job.evalSeeds.map((seed) => ({ seed, fitness })) },
  bestCheckpoint: { fitness, step: 2048 },
  components: {},
  episodeLength: [],
  fitnessCurve: [],
  steps: 2048,
  wallMs: 5,
  policy: "remote:w1",
});
const answer = (fitness: number, cached: boolean): PoolOutcome => ({ kind: "result", result: result(fitness), losses: null, cached, jobDir: null });
const stored = (path: string) => {
  const read = readCacheEntry(path);
  if (!("entry" in read)) throw new Error(read.problem);
  return read.entry;
};

describe("a worker's answer recorded in the coordinator's trainer cache", () => {
  it("is an entry of the cache's key and format, with its loss summary; a worker's cached answer is dated before any run", () => {
    const dir = tempDir();
    const now = new Date("2026-01-02T00:00:00Z");
    const fresh = stored(recordRemoteOutcome(dir, job, trainer, answer(50, false), now)!);
    expect(fresh).toMatchObject({ trainer, task: "cartpole", storedAt: now.toISOString(), outcome: { kind: "result", losses: null } });
    const other = { ...job, seed: 9 };
    expect(stored(recordRemoteOutcome(dir, other, trainer, answer(50, true), now)!).storedAt).toBe(new Date(0).toISOString());
  });

  it("keeps the first answer's date when the same outcome comes again, and records what the caller got when it differs", () => {
    const dir = tempDir();
    const path = recordRemoteOutcome(dir, job, trainer, answer(50, false), new Date("2026-01-02T00:00:00Z"))!;
    recordRemoteOutcome(dir, job, trainer, answer(50, true), new Date("2026-01-03T00:00:00Z"));
    expect(stored(path).storedAt).toBe("2026-01-02T00:00:00.000Z");
    recordRemoteOutcome(dir, job, trainer, answer(60, false), new Date("2026-01-04T00:00:00Z"));
    expect(stored(path)).toMatchObject({ storedAt: "2026-01-04T00:00:00.000Z", outcome: { result: { final: { fitness: 60 } } } });
  });

  it("records nothing for an outcome the cache does not keep (a cancel)", () => {
    const cancelled: PoolOutcome = { kind: "error", error: { kind: "cancelled", message: "stopped" }, cached: false, jobDir: null };
    expect(recordRemoteOutcome(tempDir(), job, trainer, cancelled)).toBeUndefined();
  });
});
