import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeOpenAI, type FakeOpenAI } from "../support/fake-openai-server.ts";
import { hexaVersion, startHostileWorker, type HostileWorker } from "../support/hostile-worker.ts";
import { startRedis, type RedisServer } from "../support/redis-server.ts";

/**
 * A worker writes only where it chooses (docs/security.md, "What a worker trusts"): every path a signed job
 * names (llm.auditLog, llm.cacheDir, rewardSearch cacheDir and jobsDir) is ignored, even inside the worker's
 * runs folder, where another run's files live. The worker's own files go under `<runs>/.workers/`.
 */

const KEY = "test-job-key-0123456789abcdef";
const hostileTrainer = fileURLToPath(new URL("./fixtures/hostile-trainer.ts", import.meta.url));
const trainerCommand = [process.execPath, "--import", "tsx", hostileTrainer, "honest"];

let redis: RedisServer;
let model: FakeOpenAI;
let tmp: string;
let runs: string;
let worker: HostileWorker;

beforeAll(async () => {
  redis = await startRedis();
  model = await startFakeOpenAI();
  tmp = mkdtempSync(join(tmpdir(), "hexa-hostile-paths-"));
  runs = join(tmp, "runs");
  const config = join(tmp, "worker.yaml");
  writeFileSync(config, JSON.stringify({ "reward-search": { trainer: { command: trainerCommand, processes: 1 } } }));
  worker = await startHostileWorker(redis.port, ["--runs-dir", runs, "--config", config, "--allow-endpoint", model.url], KEY, {
    HEXA_ACTOR_API_KEY: "sk-worker",
    HEXA_ACTOR_BASE_URL: "http://127.0.0.1:9/v1",
    HOSTILE_STARTS_FILE: join(tmp, "trainer-starts.txt"),
  });
});
afterAll(async () => {
  await worker?.close();
  await Promise.allSettled([redis?.kill(), model?.close()]);
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

/** A victim run's folder inside the worker's runs folder, with one episode line; returns what it holds. */
const victim = (name: string) => {
  const dir = join(runs, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "episodes.jsonl"), '{"victim":true}\n');
  return () => Object.fromEntries(readdirSync(dir).map((f) => [f, readFileSync(join(dir, f), "utf8")]));
};

describe("hexa worker ignores the paths a job names", () => {
  it("an episode job whose llm.auditLog is another run's episodes.jsonl and whose llm.cacheDir lies elsewhere: nothing written there", async () => {
    const held = victim("victim-run");
    const outside = join(tmp, "outside-cache");
    const before = held();
    model.push({ text: "thinking" }, { text: "still thinking" }, { text: "done" });
    const r = await worker.inject("episodes", {
      schemaVersion: 2,
      hexa: hexaVersion,
      run: "../victim-run",
      config: {
        family: "interphyre",
        levels: ["two_body_problem"],
        agent: "react",
        actor: { maxTurns: 2 },
        llm: { auditLog: join(runs, "victim-run", "episodes.jsonl"), cacheDir: outside, actor: { model: "m", baseURL: model.url, maxRetries: 0 } },
      },
      episode: { id: "stream/two_body_problem/r1/s1", phase: "stream", level: "two_body_problem", round: 1, seed: 3, agent: "react", bankRound: null },
      bank: { skills: [], mistakes: [] },
    });
    expect(model.requests.length, `${r.error}\n${worker.stderr()}`).toBeGreaterThan(0);
    expect(held()).toEqual(before);
    expect(existsSync(outside)).toBe(false);
    const own = join(runs, ".workers", "__victim-run");
    expect(readFileSync(join(own, "llm-log.jsonl"), "utf8").trim().split("\n").length).toBe(model.requests.length);
    expect(existsSync(join(own, "llm-cache"))).toBe(true);
  });

  it("a training job whose cacheDir and jobsDir are another run's folder: trained under <runs>/.workers, nothing written there", async () => {
    const held = victim("victim-trainings");
    const before = held();
    const r = await worker.inject("trainings", {
      schemaVersion: 2,
      hexa: hexaVersion,
      kind: "train",
      trainer: { trainer: { command: trainerCommand }, cacheDir: join(runs, "victim-trainings"), jobsDir: join(runs, "victim-trainings") },
      job: { task: "cartpole", instance: 0, reward: "function reward() { return { total: 1, components: {} }; }", steps: 200, seed: 1, evalSeeds: [2, 3, 4] },
    });
    expect(r.error, worker.stderr()).toBeUndefined();
    expect(held()).toEqual(before);
    expect(readdirSync(join(runs, ".workers", "trainer-jobs")).length).toBe(1);
    expect(readdirSync(join(runs, ".workers", "trainer-cache")).length).toBe(1);
  });
});

describe("hexa worker keeps one trainer pool, its own", () => {
  it("training jobs with a different trainer start timeout and wall budget each start no trainer of their own", async () => {
    for (const ms of [1000, 2000, 3000, 4000, 5000]) {
      const r = await worker.inject("trainings", {
        schemaVersion: 2,
        hexa: hexaVersion,
        kind: "hello",
        trainer: { trainer: { command: trainerCommand, startTimeoutMs: ms, wallMs: ms } },
      });
      expect(r.error, worker.stderr()).toBeUndefined();
    }
    expect(readFileSync(join(tmp, "trainer-starts.txt"), "utf8").trim().split("\n")).toHaveLength(1);
  });
});

describe("hexa worker allows only the endpoints it names", () => {
  const naming = (baseURL: string) => ({
    schemaVersion: 2,
    hexa: hexaVersion,
    run: "endpoint-run",
    config: { family: "interphyre", levels: ["two_body_problem"], agent: "react", llm: { actor: { model: "m", baseURL, maxRetries: 0 } } },
    episode: {
      id: `stream/two_body_problem/r1/s${baseURL.length}`,
      phase: "stream",
      level: "two_body_problem",
      round: 1,
      seed: 3,
      agent: "react",
      bankRound: null,
    },
    bank: { skills: [], mistakes: [] },
  });

  it.each([
    ["OpenAI's endpoint, once --allow-endpoint names another", "https://api.openai.com/v1"],
    ["HEXA_ACTOR_BASE_URL of the worker's environment, which no model reads", "http://127.0.0.1:9/v1"],
  ])("a job naming %s: refused once, naming llm.actor.baseURL", async (_what, url) => {
    const r = await worker.inject("episodes", naming(url));
    expect(r.error).toMatch(
      new RegExp(
        `llm\\.actor\\.baseURL: this worker does not send requests to "${url.replaceAll(".", "\\.")}" \\(it allows ${model.url.replaceAll(".", "\\.")}\\)`,
      ),
    );
    expect(r.attempts).toBe(1);
  });
});
