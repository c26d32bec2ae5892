import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { Worker } from "bullmq";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TrainCache } from "../levels/reward-search/trainer/cache.ts";
import type { PoolJob, TrainerPool } from "../levels/reward-search/trainer/pool.ts";
import { trainingHandler } from "../levels/reward-search/worker/training-handler.ts";
import { redisTrainerPool } from "../levels/reward-search/worker/redis-trainer-pool.ts";
import { hexaVersion } from "./support/hostile-worker.ts";
import { startRedis, type RedisServer } from "./support/redis-server.ts";

/**
 * The trainings queue end to end on a real redis-server: the coordinator's Redis trainer pool, and a worker's
 * training handler (the code `hexa worker --queues trainings` runs) with its own pool of fake trainers and its
 * own cache. What a p2p search asks of a training (its loss summary) travels in the job and comes back.
 */

const fake = fileURLToPath(new URL("../levels/reward-search/trainer/fixtures/fake-trainer.ts", import.meta.url));
const command = [process.execPath, "--import", "tsx", fake, "ok"];
const tmp = mkdtempSync(join(tmpdir(), "hexa-redis-trainings-"));
const workerDir = join(tmp, "worker");
const countFile = join(tmp, "trained.txt");
const trained = () => (existsSync(countFile) ? readFileSync(countFile, "utf8").split("\n").filter(Boolean).length : 0);

let redis: RedisServer;
let worker: Worker;
let handler: ReturnType<typeof trainingHandler>;
let pool: TrainerPool;

beforeAll(async () => {
  process.env.FAKE_COUNT_FILE = countFile;
  process.env.FAKE_ITER_MS = "1";
  redis = await startRedis();
  const connection = { host: "127.0.0.1", port: redis.port, maxRetriesPerRequest: null };
  handler = trainingHandler({ workerName: () => "w1", settings: { trainer: { command, processes: 1 } }, workerDir });
  worker = new Worker("hexa-trainings", (job) => handler.handle(job.data, job.id!, (p) => job.updateProgress(p)), { connection });
  await worker.waitUntilReady();
  pool = redisTrainerPool({ connection, hexa: hexaVersion, trainer: { trainer: { command } }, sign: (_k, _id, d) => d, resultProblem: () => null });
});
afterAll(async () => {
  await pool?.close();
  await worker?.close(true);
  await handler?.close();
  await redis?.kill();
  delete process.env.FAKE_COUNT_FILE;
  delete process.env.FAKE_ITER_MS;
});

const job = (reward: string): PoolJob => ({ task: "fake", instance: 0, reward, steps: 300, seed: 1, evalSeeds: [2, 3, 4] });

/** An entry of the worker's cache as an older hexa wrote it: a result without the loss summary. */
const oldEntry = (j: PoolJob) => {
  const result = {
    final: { fitness: 5, perSeed: j.evalSeeds.map((seed) => ({ seed, fitness: 5 })) },
    bestCheckpoint: { fitness: 5, step: j.steps },
    components: {},
    episodeLength: [],
    fitnessCurve: [{ step: j.steps, fitness: 5 }],
    steps: j.steps,
    wallMs: 1,
    policy: join(workerDir, "gone", "policy.json"),
  };
  new TrainCache(join(workerDir, "trainer-cache")).put({ ...j, jobDir: "" }, { name: "fake", version: "0.0.1" }, { kind: "result", result });
};

describe("trainings on a worker through Redis", () => {
  it("a job that needs the loss summary is trained again on a worker whose cache entry keeps none, and the summary comes back", async () => {
    const j = job("function reward() { return { total: 1, components: {} }; } // old entry");
    oldEntry(j);
    const served = await pool.train(j);
    expect(served).toMatchObject({ kind: "result", cached: true });
    expect("losses" in served).toBe(false);
    expect(trained()).toBe(0);

    const needed = await pool.train(j, { needsLosses: true });
    expect(trained()).toBe(1);
    expect(needed).toMatchObject({ kind: "result", cached: false });
    // The fake trainer reports no losses: the summary is null (none reported), not missing.
    expect(needed.kind === "result" && needed.losses).toBeNull();
  }, 60_000);
});
