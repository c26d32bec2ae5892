import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { getTask } from "../tasks/index.ts";
import type { PoolJob, PoolOutcome, TrainerPool } from "../trainer/pool.ts";
import { replayTrainerPool, type TrainingsReplay } from "../verify/replay-pool.ts";
import { keepWorkerTrainings, type KeptTrainings, recordingTrainer } from "./kept-trainings.ts";

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => rmSync(d, { recursive: true, force: true })));
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), "hexa-kept-"));
  dirs.push(d);
  return d;
};

const task = { level: "cartpole", seed: 7 };
const REWARD = "export default function reward(obs) { return 1; }";

/** The job a cartpole session at seed 7 sends for REWARD (tools/session.ts). */
const sessionJob = (steps: number): PoolJob => {
  const t = getTask("cartpole");
  const instance = t.generate(task.seed);
  return { task: t.id, instance, reward: REWARD, steps, seed: instance.trainSeed, evalSeeds: instance.evalSeeds, ppo: t.training.ppo };
};

const resultFor = (job: PoolJob, policy = "remote:w1"): PoolOutcome => ({
  kind: "result",
  result: {
    final: { fitness: 120, perSeed: job.evalSeeds.map((seed) => ({ seed, fitness: 120 })) },
    bestCheckpoint: { fitness: 130, step: 512 },
    components: {},
    episodeLength: [{ step: 512, mean: 40 }],
    fitnessCurve: [{ step: 512, fitness: 110 }],
    steps: job.steps,
    wallMs: 10,
    policy,
  },
  cached: false,
  jobDir: null,
});

/** A worker's trainer, as the trainings queue answers (remote-outcome.ts), noting what its episode asked. */
const workerPool = (answer: (job: PoolJob) => PoolOutcome): TrainerPool => ({
  train: async (job) => answer(job),
  hello: async () => ({ type: "hello", protocol: 1, trainer: { name: "hexa-ppo", version: "9.9" }, tasks: [] }) as never,
  sent: 0,
  close: async () => {},
});

const keptOf = async (steps: number, answer = (j: PoolJob) => resultFor(j)): Promise<KeptTrainings> => {
  const kept: KeptTrainings = [];
  await recordingTrainer(workerPool(answer), kept).train(sessionJob(steps));
  return JSON.parse(JSON.stringify(kept)) as KeptTrainings; // as it crosses Redis
};

describe("a worker's trainings kept in the run", () => {
  it("are answered by the replay exactly as the episode saw them", async () => {
    const dir = tempDir();
    const kept = await keptOf(2048);
    expect(keepWorkerTrainings(dir, task, kept)).toBeUndefined();
    const state: TrainingsReplay = { cacheDir: dir, startedAt: new Date(Date.now() - 60_000), used: [] };
    const replayed = await replayTrainerPool(() => state).train(sessionJob(2048));
    const { entry: _entry, ...seen } = replayed;
    expect(seen).toEqual(resultFor(sessionJob(2048)));
    expect(state.used[0]?.trainer).toEqual({ name: "hexa-ppo", version: "9.9" });
  });

  it("keep a training the trainings queue answered from a cache as cached when replayed", async () => {
    const dir = tempDir();
    const kept = await keptOf(2048, (j) => ({ ...resultFor(j), cached: true }));
    expect(keepWorkerTrainings(dir, task, kept)).toBeUndefined();
    const state: TrainingsReplay = { cacheDir: dir, startedAt: new Date(Date.now() - 60_000), used: [] };
    expect((await replayTrainerPool(() => state).train(sessionJob(2048))).cached).toBe(true);
  });

  it("keep the training's loss summary: a replay that reads it answers as the episode saw it, and refuses an entry without one", async () => {
    const losses = { updates: 2, policyLoss: 0, valueLoss: 1, entropy: 0.6, approxKl: 0.01, clipFrac: 0.1, explainedVariance: 0.3 };
    const withLosses = tempDir();
    expect(keepWorkerTrainings(withLosses, task, await keptOf(2048, (j) => ({ ...resultFor(j), losses })))).toBeUndefined();
    const state: TrainingsReplay = { cacheDir: withLosses, startedAt: new Date(Date.now() - 60_000), used: [] };
    expect(await replayTrainerPool(() => state).train(sessionJob(2048), { needsLosses: true })).toMatchObject({ losses });
    const without = tempDir();
    expect(keepWorkerTrainings(without, task, await keptOf(2048))).toBeUndefined();
    const old: TrainingsReplay = { cacheDir: without, startedAt: new Date(Date.now() - 60_000), used: [] };
    await expect(replayTrainerPool(() => old).train(sessionJob(2048), { needsLosses: true })).rejects.toThrow(/\.json: outcome\.losses: missing; /);
    expect(old.missing).toMatch(/outcome\.losses: missing/);
    expect((await replayTrainerPool(() => ({ ...old, missing: undefined })).train(sessionJob(2048))).kind).toBe("result");
  });

  it.each([
    ["a policy named by a path", (j: PoolJob) => resultFor(j, "/etc/passwd"), /kept\[1\]\.outcome\.result\.policy: .*names a file/],
    ["F on other seeds", (j: PoolJob) => resultFor({ ...j, evalSeeds: [1, 2, 3] }), /kept\[1\]\.outcome\.result: final\.perSeed: F on seeds \[1, 2, 3\]/],
    [
      "F outside the task's range",
      (j: PoolJob) => {
        const o = resultFor(j);
        return o.kind === "result" ? { ...o, result: { ...o.result, final: { ...o.result.final, fitness: 1e9 } } } : o;
      },
      /final\.fitness: 1000000000 is outside task cartpole's F range/,
    ],
  ])("are refused whole, nothing written, for %s", async (_what, answer, message) => {
    const dir = tempDir();
    const good = await keptOf(1024);
    const bad = await keptOf(2048, answer);
    expect(keepWorkerTrainings(dir, task, [...good, ...bad])).toMatch(message);
    expect(existsSync(dir) ? readdirSync(dir) : []).toEqual([]);
  });

  it("are required of a worker's episode, and bounded", () => {
    const dir = tempDir();
    expect(keepWorkerTrainings(dir, task, undefined)).toMatch(/^kept: missing/);
    expect(keepWorkerTrainings(dir, task, [{ reward: REWARD }])).toMatch(/^kept\[0\]\.steps: /);
    expect(
      keepWorkerTrainings(
        dir,
        task,
        Array.from({ length: 1001 }, () => ({})),
      ),
    ).toMatch(/^kept: /);
  });
});
