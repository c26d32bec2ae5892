import { createAppContext } from "../../src/app/context.ts";
import { Worker } from "bullmq";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openRedisEpisodes } from "../../src/backend/redis/coordinator.ts";
import { NO_USAGE } from "../../src/store/trajectory.ts";
import { redisTrainerPool } from "../../levels/reward-search/worker/redis-trainer-pool.ts";
import type { TrainerPool } from "../../levels/reward-search/trainer/pool.ts";
import { hexaVersion } from "../support/hostile-worker.ts";
import { startRedis, type RedisServer } from "../support/redis-server.ts";

/** The shipped families, as hexa has them with no HEXA_FAMILIES. */
const { families } = await createAppContext({});

/**
 * Results that come back through Redis are checked by the coordinator (docs/security.md): anyone who can write
 * to Redis, or a hostile worker, can answer a job. A training's result is checked as a local trainer's is (seeds
 * sent, F inside the task's range), its policy path (on another machine) is never read here, and an episode's
 * trajectory must be of the job's level and seed.
 */

const interphyre = async () => {
  await families.load();
  return families.get("interphyre");
};

let redis: RedisServer;
let answer: (data: Record<string, any>) => unknown = () => undefined;
const workers: Worker[] = [];

const hello = { type: "hello", protocol: 1, trainer: { name: "hostile", version: "0.0.1" }, tasks: [] };
const result = (job: Record<string, any>, over: { seeds?: number[]; fitness?: number; policy?: string } = {}) => {
  const fitness = over.fitness ?? 100;
  return {
    kind: "result",
    result: {
      final: { fitness, perSeed: (over.seeds ?? job.evalSeeds).map((seed: number) => ({ seed, fitness })) },
      bestCheckpoint: { fitness, step: job.steps },
      components: {},
      episodeLength: [],
      fitnessCurve: [{ step: job.steps, fitness }],
      steps: job.steps,
      wallMs: 1,
      policy: over.policy ?? "/srv/hexa/runs/.workers/trainer-jobs/x/policy.json",
    },
    cached: false,
    jobDir: "/srv/hexa/runs/.workers/trainer-jobs/x",
  };
};

beforeAll(async () => {
  redis = await startRedis();
  const connection = { host: "127.0.0.1", port: redis.port, maxRetriesPerRequest: null };
  for (const kind of ["trainings", "episodes"])
    workers.push(new Worker(`hexa-${kind}`, async (job) => (job.data.kind === "hello" ? { hello } : answer(job.data)), { connection }));
  await Promise.all(workers.map((w) => w.waitUntilReady()));
});
afterAll(async () => {
  await Promise.allSettled(workers.map((w) => w.close(true)));
  await redis?.kill();
});

const trainJob = () => ({
  task: "cartpole",
  instance: 0,
  reward: `function reward() { return { total: ${Math.random()}, components: {} }; }`,
  steps: 200,
  seed: 1,
  evalSeeds: [2, 3, 4],
});

describe("training results from Redis", () => {
  let pool: TrainerPool;
  beforeAll(() => {
    pool = redisTrainerPool({
      connection: { host: "127.0.0.1", port: redis.port, maxRetriesPerRequest: null },
      hexa: hexaVersion,
      trainer: {},
      sign: (_k, _id, d) => d,
      resultProblem: () => null,
    });
  });
  afterAll(() => pool.close());

  it.each([
    ["F = 99,999", { fitness: 99_999 }, /worker \S+'s result: final\.fitness: 99999 is outside task cartpole's F range \[0, 500\]/],
    ["F on foreign seeds", { seeds: [7, 8, 9] }, /final\.perSeed: F on seeds \[7, 8, 9\], not on the evaluation seeds sent \[2, 3, 4\]/],
  ])("a result with %s is refused, naming the field", async (_name, over, message) => {
    answer = (d) => ({ outcome: result(d.job, over), worker: "evil" });
    await expect(pool.train(trainJob())).rejects.toThrow(message);
  });

  it("an outcome of another shape (F as text) is refused, naming the field", async () => {
    answer = (d) => ({ outcome: { kind: "result", result: { ...result(d.job).result, final: { fitness: "99999", perSeed: [] } } }, worker: "evil" });
    await expect(pool.train(trainJob())).rejects.toThrow(/worker evil's outcome: result\.final\.fitness: /);
  });

  it("a result naming policy /etc/passwd is recorded without that path: nothing local is read by it", async () => {
    answer = (d) => ({ outcome: result(d.job, { policy: "/etc/passwd" }), worker: "evil" });
    const out = await pool.train(trainJob());
    expect(out.kind).toBe("result");
    expect(out.kind === "result" && out.result.policy).toBe("remote:evil");
    expect(out.jobDir).toBeNull();
  });
});

describe("episode results from Redis", () => {
  it("a trajectory of another level or seed than the job's is refused, not recorded", async () => {
    const backend = await openRedisEpisodes({
      connection: { host: "127.0.0.1", port: redis.port, maxRetriesPerRequest: null },
      run: "hostile-results",
      config: {},
      hexa: hexaVersion,
      results: { family: await interphyre(), maxTurnsOf: () => 1 },
    });
    try {
      const trajectory = (level: string, seed: number) => ({
        schemaVersion: 2,
        level,
        seed,
        agent: "heuristic",
        model: "none (heuristic)",
        success: true,
        turns: 1,
        maxTurns: 1,
        action: null,
        steps: [{ turn: 1, thought: "", tool: "finish", args: {}, observation: "", ok: true, ms: 1 }],
        usage: NO_USAGE,
        wallMs: 1,
        stopReason: "success",
      });
      const job = (n: number) => ({
        id: `stream/catapult/r1/s${n}`,
        phase: "stream" as const,
        level: "catapult",
        round: 1,
        seed: 56,
        agent: "heuristic" as const,
        bankRound: null,
        bank: { skills: [], mistakes: [] },
      });
      answer = () => ({ schemaVersion: 2, trajectory: trajectory("two_body_problem", 56), retrieved: [], usage: [], worker: "evil" });
      await expect(backend.play(job(1), () => undefined)).rejects.toThrow(/level "two_body_problem" seed 56, not of the job's level "catapult" seed 56/);
      answer = () => ({ schemaVersion: 2, trajectory: trajectory("catapult", 7), retrieved: [], usage: [], worker: "evil" });
      await expect(backend.play(job(2), () => undefined)).rejects.toThrow(/seed 7, not of the job's level "catapult" seed 56/);
      answer = () => ({ schemaVersion: 2, trajectory: trajectory("catapult", 56), retrieved: [], usage: [], worker: "honest" });
      await expect(backend.play(job(3), () => undefined)).resolves.toMatchObject({ trajectory: { level: "catapult", seed: 56 } });
    } finally {
      await backend.close?.();
    }
  });
});
