import { createHmac } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signJob } from "../../src/backend/redis/job-signature.ts";
import { canonicalJson } from "../../src/util/canonical-json.ts";
import { hexaVersion, startHostileWorker, type HostileWorker } from "../support/hostile-worker.ts";
import { startRedis, type RedisServer } from "../support/redis-server.ts";

/**
 * A signed job cannot be replayed (docs/security.md, "The job key"): its signature covers the time it was signed,
 * and a worker refuses a job older than --max-job-age. Someone who can read Redis sees every finished job for a
 * day; adding one again, signature and all, spends the worker's API key again unless the worker refuses it.
 */

const KEY = "test-job-key-0123456789abcdef";
const HOUR = 3600_000;

let redis: RedisServer;
let tmp: string;
let worker: HostileWorker;

beforeAll(async () => {
  redis = await startRedis();
  tmp = mkdtempSync(join(tmpdir(), "hexa-hostile-replay-"));
  worker = await startHostileWorker(redis.port, ["--runs-dir", join(tmp, "runs"), "--max-job-age", "1h"], KEY);
});
afterAll(async () => {
  await worker?.close();
  await redis?.kill();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

let n = 0;
const episodeJob = () => ({
  schemaVersion: 2,
  hexa: hexaVersion,
  run: "replayed-run",
  config: { family: "interphyre", levels: ["two_body_problem"], agent: "heuristic" },
  episode: { id: `stream/two_body_problem/r1/s${++n}`, phase: "stream", level: "two_body_problem", round: 1, seed: 3, agent: "heuristic", bankRound: null },
  bank: { skills: [], mistakes: [] },
});

describe("hexa worker refuses replayed jobs", () => {
  it("a job signed two hours ago (a finished job added again with its signature): refused once, naming its age", async () => {
    const r = await worker.inject("episodes", episodeJob(), { sign: (d, id) => signJob(KEY, "episodes", id, d, Date.now() - 2 * HOUR) });
    expect(r.error).toMatch(/signedAt: the job was signed 2\.0 h ago, older than this worker's maximum job age of 60 min \(--max-job-age\)/);
    expect(r.attempts).toBe(1);
  });

  it("a job signed with the key but without a signing time: refused once", async () => {
    const sign = (d: object, id: string) => ({
      ...d,
      signature: createHmac("sha256", KEY)
        .update(canonicalJson({ kind: "episodes", jobId: id, data: d }))
        .digest("hex"),
    });
    const r = await worker.inject("episodes", episodeJob(), { sign });
    expect(r.error).toMatch(/signedAt: the job carries no signing time/);
    expect(r.attempts).toBe(1);
  });

  it("a job signed a minute ago is played; its signing time cannot be changed without the key", async () => {
    const fresh = await worker.inject("episodes", episodeJob(), { sign: (d, id) => signJob(KEY, "episodes", id, d, Date.now() - 60_000) });
    expect(fresh.error, worker.stderr()).toBeUndefined();
    const redated = await worker.inject("episodes", episodeJob(), {
      sign: (d, id) => ({ ...signJob(KEY, "episodes", id, d, Date.now() - 2 * HOUR), signedAt: new Date().toISOString() }),
    });
    expect(redated.error).toMatch(/the job's signature does not match this worker's job key/);
  });
});
