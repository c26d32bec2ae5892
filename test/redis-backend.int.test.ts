import type { ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { Queue } from "bullmq";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { spawnHexa, type Out } from "./support/hexa-cli.ts";
import { jobOutcome } from "./support/job-outcome.ts";
import { startRedis, type RedisServer } from "./support/redis-server.ts";

/**
 * The Redis episode backend (docs/ARCHITECTURE.md §7) on a real redis-server (no persistence, a free loopback
 * port) and real `hexa worker` processes: a run over Redis records what a local run records; a worker killed
 * with kill -9 mid-episode, a coordinator killed mid-round and a Redis restart lose nothing and record no
 * episode twice; a deterministic failure fails the run at once; a job of another hexa version is refused
 * without retries.
 *
 * The heuristic agent and evolver make a run a function of its config. Locks of 2 s (checked every 1 s) make
 * a dead worker's job come back in about 2 s instead of BullMQ's default 30 s.
 */

const LEVELS = ["pass_the_parcel", "two_body_problem"] as const;
const ROUNDS = 2;
const X = 2;
const OFFLINE = 2;
const TOTAL = LEVELS.length * (OFFLINE + ROUNDS * X);
const CONFIG = `levels: [${LEVELS.join(", ")}]
agent: heuristic
evolver: heuristic
init: off2on
update: evolving
rounds: ${ROUNDS}
episodesPerRound: ${X}
offline:
  episodes: ${OFFLINE}
actor:
  maxTurns: 6
bank:
  maxSkills: 2
  maxMistakes: 2
`;
const WORKER_FLAGS = ["--lock-ms", "2000", "--stalled-ms", "1000"];
const ENV = { HEXA_QUEUE_CHECK_MS: "300" };

let redis: RedisServer;
let tmp: string;
let config: string;
const live = new Set<ChildProcess>();

beforeAll(async () => {
  redis = await startRedis();
  tmp = mkdtempSync(join(tmpdir(), "hexa-redis-"));
  config = join(tmp, "config.yaml");
  writeFileSync(config, CONFIG);
});
// A test that fails before stopping its workers must not leave them to take the next test's jobs.
afterEach(() => {
  for (const c of live) c.kill("SIGKILL");
  live.clear();
});
afterAll(async () => {
  await redis?.kill();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

interface Proc {
  child: ChildProcess;
  done: Promise<Out>;
  stderr: () => string;
}
const start = (args: string[], env: NodeJS.ProcessEnv = {}): Proc => {
  let err = "";
  const p = spawnHexa(args, { env: { ...ENV, ...env }, onStderr: (s) => (err = s) });
  live.add(p.child);
  void p.done.then(() => live.delete(p.child));
  return { ...p, stderr: () => err };
};
const worker = (env: NodeJS.ProcessEnv = {}, ...extra: string[]): Proc => start(["worker", "--redis", redis.url, ...WORKER_FLAGS, ...extra], env);
/** Resolves once the worker is connected (its first line). */
const ready = async (w: Proc) => {
  await until(
    () => w.stderr().includes(" at once per queue"),
    20_000,
    () => `worker did not start: ${w.stderr()}`,
  );
  return w;
};
/** Stops a worker as a user does (Ctrl-C: it finishes its jobs in flight and leaves the table). */
const stop = async (w: Proc): Promise<Out> => {
  w.child.kill("SIGINT");
  return w.done;
};
const until = async (cond: () => boolean, ms: number, what: () => string) => {
  const t0 = Date.now();
  while (!cond()) {
    if (Date.now() - t0 > ms) throw new Error(`timed out: ${what()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
};

const runDirIn = (runsDir: string): string => {
  const entries = existsSync(runsDir) ? readdirSync(runsDir).filter((d) => !d.startsWith(".")) : [];
  if (entries.length !== 1) throw new Error(`${runsDir}: expected one run directory, got ${entries.join(", ")}`);
  return join(runsDir, entries[0]!);
};
const lines = (path: string): string[] => (existsSync(path) ? readFileSync(path, "utf8").split("\n").filter(Boolean) : []);
const episodeIds = (dir: string): string[] => lines(join(dir, "episodes.jsonl")).map((l) => (JSON.parse(l) as { id: string }).id);
/** Jobs a worker played to the end (its log says so once per job). */
const played = (...ws: Proc[]) =>
  ws.flatMap((w) =>
    w
      .stderr()
      .split("\n")
      .filter((l) => / done$/.test(l))
      .map((l) => l.replace(/^episodes job [^/]+\//, "").replace(/ done$/, "")),
  );

/**
 * A run directory as data with its timings set aside: every `…Ms`/`ms` number, `at`/`createdAt` stamps, pids,
 * and the run id (it holds the start time). Episodes are sorted by id (concurrent episodes finish in any order,
 * locally too); report.html is a rendering of the rest.
 */
const decided = (dir: string): Map<string, unknown> => {
  const id = JSON.parse(readFileSync(join(dir, "run.json"), "utf8")).id as string;
  const clean = (v: unknown): unknown => {
    if (typeof v === "string") return v.replaceAll(id, "RUN");
    if (Array.isArray(v)) return v.map(clean);
    if (v && typeof v === "object") return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, /(^ms|Ms|^at|At|^pid)$/.test(k) ? 0 : clean(x)]));
    return v;
  };
  const out = new Map<string, unknown>();
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      const rel = relative(dir, p);
      if (statSync(p).isDirectory()) walk(p);
      else if (rel === "report.html" || rel === "run.lock") continue;
      else if (name.endsWith(".jsonl")) {
        const ls = lines(p).map((l) => clean(JSON.parse(l)));
        out.set(rel, name === "episodes.jsonl" ? ls.sort((a, b) => String((a as { id: string }).id).localeCompare((b as { id: string }).id)) : ls);
      } else if (name.endsWith(".json")) out.set(rel, clean(JSON.parse(readFileSync(p, "utf8"))));
      else out.set(rel, readFileSync(p, "utf8"));
    }
  };
  walk(dir);
  return out;
};

let local: Map<string, unknown>;

describe("hexa run --backend redis://", () => {
  it("two workers play a run whose directory is the local run's (timestamps aside)", async () => {
    const localRuns = join(tmp, "local");
    const l = await start(["run", config, "--runs-dir", localRuns]).done;
    expect(l.status, l.stderr).toBe(0);
    local = decided(runDirIn(localRuns));

    const [a, b] = await Promise.all([ready(worker({}, "--concurrency", "1")), ready(worker({}, "--concurrency", "1"))]);
    const runs = join(tmp, "redis");
    const r = await start(["run", config, "--runs-dir", runs, "--backend", redis.url]).done;
    expect(r.status, r.stderr).toBe(0);
    const dir = runDirIn(runs);
    expect(decided(dir)).toEqual(local);
    // Both workers took jobs, and each episode was played once.
    expect(played(a!).length).toBeGreaterThan(0);
    expect(played(b!).length).toBeGreaterThan(0);
    expect(played(a!, b!).sort()).toEqual(episodeIds(dir).sort());

    const table = await start(["workers", "--redis", redis.url]).done;
    expect(table.status, table.stderr).toBe(0);
    const rows = table.stdout.split("\n").filter((x) => / up /.test(x));
    expect(rows).toHaveLength(2);
    // done column: the two workers' jobs add up to the run's episodes.
    const doneOf = (row: string) => Number(row.trim().split(/\s+/)[5]);
    expect(rows.map(doneOf).reduce((s, n) => s + n, 0)).toBe(TOTAL);
    expect(table.stdout).toMatch(/waiting: episodes 0, trainings 0/);
    await Promise.all([stop(a!), stop(b!)]);
    const after = await start(["workers", "--redis", redis.url]).done;
    expect(after.stdout).toContain("(no worker; start one with hexa worker --redis URL)");
  }, 120_000);

  it("a worker killed with kill -9 mid-episode: another takes its job over, and the episode is recorded once", async () => {
    const a = await ready(worker());
    const runs = join(tmp, "killed-worker");
    const run = start(["run", config, "--runs-dir", runs, "--backend", redis.url]);
    // The first job a starts is the one it dies in; b starts only then, so only a stalled-job recovery gives it that job.
    await until(
      () => /job \S+ started/.test(a.stderr()),
      30_000,
      () => a.stderr(),
    );
    const victim = /episodes job \S+?\/(\S+) started/.exec(a.stderr())![1]!;
    a.child.kill("SIGKILL");
    const b = await ready(worker());
    const r = await run.done;
    expect(r.status, r.stderr).toBe(0);
    const dir = runDirIn(runs);
    expect(played(a)).not.toContain(victim);
    expect(played(b)).toContain(victim);
    expect(b.stderr()).toMatch(new RegExp(`${victim.replaceAll("/", "\\/")} started \\(attempt 1\\)`));
    const ids = episodeIds(dir);
    expect(ids).toHaveLength(TOTAL);
    expect(new Set(ids).size).toBe(TOTAL);
    expect(decided(dir)).toEqual(local);
    await stop(b);
  }, 120_000);

  it("a coordinator killed mid-round: --resume re-attaches to the queued and finished jobs, and plays none twice", async () => {
    const w = await ready(worker());
    const runs = join(tmp, "killed-coordinator");
    const run = start(["run", config, "--runs-dir", runs, "--backend", redis.url]);
    // Killed once round 1's jobs are queued and the worker has finished one of them.
    await until(
      () => played(w).some((id) => id.startsWith("stream/")),
      60_000,
      () => w.stderr(),
    );
    run.child.kill("SIGKILL");
    await run.done;
    const dir = runDirIn(runs);
    const before = episodeIds(dir).length;
    expect(before).toBeLessThan(TOTAL);
    const r = await start(["run", "--resume", dir, "--backend", redis.url]).done;
    expect(r.status, r.stderr).toBe(0);
    const ids = episodeIds(dir);
    expect(new Set(ids).size).toBe(TOTAL);
    expect(ids).toHaveLength(TOTAL);
    // Every episode was played once by the worker: those finished while no coordinator listened were read back from Redis.
    expect(played(w).sort()).toEqual([...ids].sort());
    const resumed = decided(dir);
    for (const key of ["episodes.jsonl", "bank-events.jsonl", "banks/round-02.json", "metrics.json"]) expect(resumed.get(key)).toEqual(local.get(key));
    await stop(w);
  }, 120_000);

  it("Redis restarted mid-run: the worker and the coordinator reconnect, the lost jobs are queued again, nothing recorded is lost", async () => {
    const w = await ready(worker());
    const runs = join(tmp, "redis-restart");
    const run = start(["run", config, "--runs-dir", runs, "--backend", redis.url]);
    await until(
      () => played(w).some((id) => id.startsWith("stream/")),
      60_000,
      () => w.stderr(),
    );
    await redis.restart();
    const r = await run.done;
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/is no longer in Redis \(restarted\?\); queued again/);
    const dir = runDirIn(runs);
    const ids = episodeIds(dir);
    expect(ids).toHaveLength(TOTAL);
    expect(new Set(ids).size).toBe(TOTAL);
    expect(decided(dir)).toEqual(local);
    await stop(w);
  }, 120_000);

  it("a job that fails deterministically (no API key on the worker) fails the run at once, without retries", async () => {
    const w = await ready(worker({ OPENAI_API_KEY: "", HEXA_ACTOR_API_KEY: "" }, "--allow-endpoint", "http://127.0.0.1:9/v1"));
    const cfg = join(tmp, "llm.yaml");
    writeFileSync(
      cfg,
      `levels: [catapult]\nagent: hexa\nevolver: heuristic\ninit: online\nrounds: 1\nepisodesPerRound: 1\nllm:\n  actor:\n    model: gpt-4.1-mini\n    baseURL: http://127.0.0.1:9/v1\n`,
    );
    const t0 = Date.now();
    const r = await start(["run", cfg, "--runs-dir", join(tmp, "no-key"), "--backend", redis.url], { OPENAI_API_KEY: "sk-coordinator-only" }).done;
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(
      /hexa: stream\/catapult\/r1\/s\d+: a worker failed the episode \(llm\.actor\.apiKey: no API key .*export it where hexa worker runs/,
    );
    expect(r.stderr).toContain("hexa run --resume");
    expect(Date.now() - t0).toBeLessThan(30_000);
    expect(w.stderr().match(/ started \(attempt/g)).toHaveLength(1);
    await stop(w);
  }, 60_000);

  it("a job queued by another hexa version is refused with both versions named, and not retried", async () => {
    const w = await ready(worker());
    const queue = new Queue("hexa-episodes", { connection: { host: "127.0.0.1", port: redis.port, maxRetriesPerRequest: null } });
    const failedReason = async (id: string) => (await jobOutcome(queue, id, 30_000, () => `worker said: ${w.stderr()}`)).error;
    try {
      await queue.add("episode", { schemaVersion: 2, hexa: { version: "0.0.1-other", commit: null } }, { jobId: "foreign/job", attempts: 3 });
      expect(await failedReason("foreign/job")).toMatch(
        /job foreign\/job: queued by hexa 0\.0\.1-other; this worker is hexa \d+\.\d+\.\d+.*; run the same hexa version on the coordinator and every worker/,
      );
      expect((await queue.getJob("foreign/job"))?.attemptsMade).toBe(1);
      await queue.add("episode", { schemaVersion: 99, hexa: { version: "9.9.9", commit: null } }, { jobId: "newer/job", attempts: 3 });
      expect(await failedReason("newer/job")).toMatch(/job schema version 99 from hexa 9\.9\.9; this worker \(hexa .*\) reads version 2/);
    } finally {
      await queue.close();
    }
    await stop(w);
  }, 60_000);

  it("reward search: a worker serving only episodes sends their trainings to one serving trainings, and the run is the local one", async () => {
    const rs = (cache: string) => {
      const path = join(tmp, `rs-${cache}.yaml`);
      // Each run its own training cache, so the Redis run trains everything again.
      writeFileSync(
        path,
        `family: reward-search\nlevels: [cartpole]\nagent: heuristic\nevolver: heuristic\nrounds: 1\nepisodesPerRound: 1\noffline: {episodes: 1}\nactor: {maxTurns: 3}\nconcurrency: 1\nrewardSearch: {trainSteps: 1024, finishSteps: 2048, cacheDir: ${join(tmp, cache)}, jobsDir: ${join(tmp, "jobs")}}\n`,
      );
      return path;
    };
    const l = await start(["run", rs("cache-local"), "--runs-dir", join(tmp, "rs-local")]).done;
    expect(l.status, l.stderr).toBe(0);
    // The trainings worker's runs folder holds the runs' caches and job folders: a job may name no path outside it.
    const [episodes, trainings] = await Promise.all([ready(worker({}, "--queues", "episodes")), ready(worker({}, "--queues", "trainings", "--runs-dir", tmp))]);
    const r = await start(["run", rs("cache-redis"), "--runs-dir", join(tmp, "rs-redis"), "--backend", redis.url]).done;
    expect(r.status, r.stderr).toBe(0);
    expect(episodes!.stderr()).not.toMatch(/trainings job/);
    const trained = trainings!.stderr().match(/trainings job training-\w+ done/g) ?? [];
    // 2 episodes × (a train_policy and a finish), and the trainer's hello.
    expect(trained.length).toBeGreaterThanOrEqual(4);
    // The same trainings and scores; only the wall time a training reports differs.
    const outcome = (dir: string) => JSON.stringify(decided(runDirIn(dir)).get("episodes.jsonl")).replace(/env steps in [\d.]+ s\./g, "env steps in T s.");
    expect(outcome(join(tmp, "rs-redis"))).toBe(outcome(join(tmp, "rs-local")));
    await Promise.all([stop(episodes!), stop(trainings!)]);
  }, 120_000);

  it("hexa compare --backend spreads the grid's runs over the workers", async () => {
    const w = await ready(worker({}, "--concurrency", "2"));
    const base = join(tmp, "grid.yaml");
    writeFileSync(
      base,
      `levels: [two_body_problem]\nagent: heuristic\nevolver: heuristic\nrounds: 1\nepisodesPerRound: 2\noffline:\n  episodes: 1\nactor:\n  maxTurns: 4\n`,
    );
    const out = join(tmp, "grid");
    const r = await start([
      "compare",
      base,
      "--grid",
      "update=evolving,static",
      "--runs",
      "1",
      "--heldout",
      "0",
      "--parallel",
      "2",
      "--out",
      out,
      "--backend",
      redis.url,
    ]).done;
    expect(r.status, r.stderr).toBe(0);
    const cells = (JSON.parse(readFileSync(join(out, "results.json"), "utf8")) as { cells: unknown[] }).cells;
    expect(cells).toHaveLength(2);
    // 2 cells × (1 offline + 2 stream episodes), every one played by the worker.
    const recorded = readdirSync(join(out, "runs")).flatMap((d) => episodeIds(join(out, "runs", d)));
    expect(recorded).toHaveLength(6);
    expect(played(w)).toHaveLength(6);
    await stop(w);
  }, 120_000);

  it("refuses a Redis that does not answer before making the run directory", async () => {
    const runs = join(tmp, "no-redis");
    const [r, bad] = await Promise.all([
      start(["run", config, "--runs-dir", runs, "--backend", "redis://127.0.0.1:9"]).done,
      start(["run", config, "--runs-dir", join(tmp, "bad-backend"), "--backend", "http://x"]).done,
    ]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/hexa: --backend redis:\/\/127\.0\.0\.1:9: Redis does not answer; start redis-server/);
    expect(existsSync(runs) && readdirSync(runs).length).toBeFalsy();
    expect(bad.stderr).toMatch(/hexa: --backend: unknown backend "http:\/\/x"; use local or redis:\/\/HOST:PORT/);
  }, 60_000);
});
