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
import { readPolicyInput } from "../levels/reward-search/cli/judge-inputs.ts";
import { checkpointsOf } from "../levels/reward-search/search/p2p-trainer.ts";
import { getTask } from "../levels/reward-search/tasks/index.ts";
import { isInside } from "../src/util/path-inside.ts";
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

describe("the same training asked twice at once", () => {
  it("is one job: the second shares the first's answer and is marked cached, as a replay reads it", async () => {
    const j = job("function reward() { return { total: 2, components: {} }; } // asked twice");
    const [before, sentBefore] = [trained(), pool.sent];
    const [a, b] = await Promise.all([pool.train(j), pool.train(j)]);
    expect(a).toMatchObject({ kind: "result", cached: false });
    expect(a.shared).toBeUndefined();
    expect(b).toMatchObject({ kind: "result", cached: true, shared: true });
    expect(b.kind === "result" && b.result).toEqual(a.kind === "result" && a.result);
    expect([trained() - before, pool.sent - sentBefore]).toEqual([1, 1]);
  });
});

describe("a training that keeps its policies, on a worker running the built-in trainer", () => {
  let builtin: { worker: Worker; handler: ReturnType<typeof trainingHandler>; pool: TrainerPool } | undefined;
  const leadJobs = join(tmp, "lead-jobs");
  beforeAll(async () => {
    const connection = { host: "127.0.0.1", port: redis.port, maxRetriesPerRequest: null };
    // A second worker serving the built-in trainer's jobs would take the fake trainer's too: the first is closed.
    await worker.close(true);
    const h = trainingHandler({ workerName: () => "w2", settings: { trainer: { processes: 1 } }, workerDir: join(tmp, "worker2") });
    const w = new Worker("hexa-trainings", (job) => h.handle(job.data, job.id!, (p) => job.updateProgress(p)), { connection });
    await w.waitUntilReady();
    const p = redisTrainerPool({ connection, hexa: hexaVersion, trainer: {}, sign: (_k, _id, d) => d, resultProblem: () => null, jobsDir: leadJobs });
    builtin = { worker: w, handler: h, pool: p };
  });
  afterAll(async () => {
    await builtin?.pool.close();
    await builtin?.worker.close(true);
    await builtin?.handler.close();
  });

  it("comes back with its checkpoint and final policies, written by the lead in its own job folder and read as a judge reads them", async () => {
    const task = getTask("cartpole");
    const instance = task.generate(2);
    const j: PoolJob = {
      task: task.id,
      instance,
      reward: task.sparseReward,
      steps: 2048,
      seed: instance.trainSeed,
      evalSeeds: instance.evalSeeds,
      ppo: task.training.ppo,
      keepPolicies: true,
    };
    const out = await builtin!.pool.train(j, { label: "it0-c0-s1", needsLosses: true });
    expect(out.kind).toBe("result");
    if (out.kind !== "result") return;
    expect(out.jobDir && isInside(leadJobs, out.jobDir)).toBe(true);
    const kept = out.result.checkpointPolicies ?? [];
    expect(kept.length).toBeGreaterThan(0);
    for (const path of [out.result.policy, ...kept.map((c) => c.policy)]) {
      expect(isInside(out.jobDir!, path)).toBe(true);
      expect(readPolicyInput(path)).toMatchObject({ task: "cartpole", instance });
    }
    // Every judged checkpoint names a policy here (the intent judge rolls it out).
    for (const cp of checkpointsOf(out.result)) expect(cp.policy && isInside(out.jobDir!, cp.policy)).toBe(true);
  }, 120_000);
});
