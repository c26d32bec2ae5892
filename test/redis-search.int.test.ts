import type { ChildProcess } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hexa, spawnHexa, type Out } from "./support/hexa-cli.ts";
import { startFakeEndpoint } from "./support/fake-endpoint.ts";
import { TrainingRecord } from "../src/search/p2p-log.ts";
import { tempDirs } from "./support/temp-files.ts";
import { startRedis, type RedisServer } from "./support/redis-server.ts";

/**
 * A whole search on `hexa worker`s: `hexa search --backend` and `hexa run --backend` with a search method send every
 * training to the trainings queue, a real `hexa worker` on a real redis-server trains them, and the coordinator
 * records each answer in its trainer cache, so that `hexa verify` replays the search identically.
 */

const tmp = tempDirs("hexa-redis-search-");
let redis: RedisServer;
let dir = "";
const live = new Set<ChildProcess>();
let worker: { child: ChildProcess; done: Promise<Out>; stderr: () => string } | undefined;

const start = (args: string[]) => {
  let err = "";
  const p = spawnHexa(args, { env: { HEXA_QUEUE_CHECK_MS: "300" }, onStderr: (s) => (err = s) });
  live.add(p.child);
  void p.done.then(() => live.delete(p.child));
  return { ...p, stderr: () => err };
};

const until = async (cond: () => boolean, ms: number, what: () => string) => {
  const t0 = Date.now();
  while (!cond()) {
    if (Date.now() - t0 > ms) throw new Error(`timed out: ${what()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
};

/** Trainings the worker finished (its log says so once per job; the trainer's hello is one more). */
const trainedByWorker = () => worker!.stderr().match(/trainings job training-\w+ done/g)?.length ?? 0;

/** The policy each recorded training names: a worker's marker, never a file of the coordinator's own trainer. */
const recordedPolicies = (cache: string): string[] =>
  readdirSync(cache)
    .filter((n) => n.endsWith(".json"))
    .map((n) => JSON.parse(readFileSync(join(cache, n), "utf8")).outcome.result?.policy as string);

beforeAll(async () => {
  redis = await startRedis();
  dir = tmp();
  worker = start(["worker", "--redis", redis.url, "--queues", "trainings", "--runs-dir", join(dir, "worker"), "--lock-ms", "2000", "--stalled-ms", "1000"]);
  await until(
    () => worker!.stderr().includes(" at once per queue"),
    20_000,
    () => `worker did not start: ${worker!.stderr()}`,
  );
}, 30_000);
afterAll(async () => {
  for (const c of live) c.kill("SIGKILL");
  await redis?.kill();
});

describe("a search whose trainings hexa workers do", () => {
  it("hexa search --backend is checked as hexa run's, before anything is written: the job key off this machine, --processes", async () => {
    const out = join(dir, "refused");
    const search = ["search", "cartpole", "--strategy", "p2p", "--budget", "2", "--out", out];
    const keyless = await hexa([...search, "--backend", "redis://10.1.2.3:6379"], { env: { HEXA_JOB_KEY: "", HEXA_JOB_KEY_FILE: "" } });
    expect(keyless.status).not.toBe(0);
    expect(keyless.stderr).toMatch(/--backend redis:\/\/10\.1\.2\.3:6379: no job key is set, .*set HEXA_JOB_KEY/);
    const processes = await hexa([...search, "--backend", redis.url, "--processes", "2"]);
    expect(processes.stderr).toMatch(/--processes: with --backend the workers train/);
    expect(existsSync(out)).toBe(false);
  }, 60_000);

  it("hexa search --backend: every training is the worker's, recorded here, and hexa verify replays it identically", async () => {
    const out = join(dir, "search");
    const cache = join(dir, "cache");
    const before = trainedByWorker();
    const p2p = ["--strategy", "p2p", "--budget", "4", "--configs", "2", "--train-seeds", "1", "--train-steps", "2048"];
    const finals = ["--final-steps", "1024", "--final-trainings", "1", "--seed", "2"];
    const r = await start(["search", "cartpole", ...p2p, ...finals, "--out", out, "--trainer-cache", cache, "--backend", redis.url]).done;
    expect(r.status, r.stderr).toBe(0);
    // 2 iterations × 2 configs × 1 seed, and the final score's best, sparse and human rewards; and the hello.
    expect(trainedByWorker() - before).toBe(8);
    const policies = recordedPolicies(cache);
    expect(policies).toHaveLength(7);
    for (const p of policies) expect(p).toMatch(/^remote:/);
    const v = await start(["verify", out, "--trainer-cache", cache]).done;
    expect(v.status, v.stderr).toBe(0);
    expect(v.stdout).toMatch(/^identical: .* 7 trainings checked/);
  }, 240_000);

  it("hexa search --backend with rf-agent: the same pool for every strategy, and the search verifies identically", async () => {
    const out = join(dir, "rf-agent");
    const cache = join(dir, "rf-cache");
    const args = ["search", "cartpole", "--method", "rf-agent", "--budget", "3", "--train-steps", "1024", "--final-steps", "1024", "--final-trainings", "1"];
    const r = await start([...args, "--out", out, "--trainer-cache", cache, "--backend", redis.url]).done;
    expect(r.status, r.stderr).toBe(0);
    const policies = recordedPolicies(cache);
    // 3 candidates and the final score's 3 trainings.
    expect(policies).toHaveLength(6);
    for (const p of policies) expect(p).toMatch(/^remote:/);
    const v = await start(["verify", out, "--trainer-cache", cache]).done;
    expect(v.status, v.stderr).toBe(0);
    expect(v.stdout).toMatch(/^identical: /);
  }, 240_000);

  it("hexa run --backend with method p2p: the search's trainings go to the worker, and the run verifies identically", async () => {
    const config = join(dir, "p2p.yaml");
    writeFileSync(
      config,
      `family: reward-search\nlevels: [cartpole]\nmethod: p2p\nagent: heuristic\nevolver: heuristic\nsearch: {budget: 2, p2p: {configs: 2, trainSeeds: 1}}\nrewardSearch: {trainSteps: 1024, finishSteps: 1024, finalTrainings: 1}\n`,
    );
    const runs = join(dir, "runs");
    const r = await start(["run", config, "--runs-dir", runs, "--backend", redis.url]).done;
    expect(r.status, r.stderr).toBe(0);
    const run = join(runs, readdirSync(runs).find((d) => !d.startsWith("."))!);
    // 1 iteration × 2 configs and the final score's 3 trainings, each a worker's answer (Redis may hold one asked by
    // an earlier test, read back: the worker's count is not this run's).
    const policies = recordedPolicies(join(run, "trainer-cache"));
    expect(policies).toHaveLength(5);
    for (const p of policies) expect(p).toMatch(/^remote:/);
    const v = await start(["verify", run]).done;
    expect(v.status, v.stderr).toBe(0);
    expect(v.stdout).toMatch(/^identical: /);
  }, 240_000);

  it("an intent search: each kept checkpoint policy comes back from the worker, is judged here, and verifies with the server stopped", async () => {
    const out = join(dir, "intent");
    const cache = join(dir, "intent-cache");
    const before = trainedByWorker();
    // The code judge only (no vision): each judged checkpoint is rolled out from the policy the worker handed back.
    const code = `function judge(traj) {
  const time = traj.steps * traj.dt;
  return [{ id: "1", value: time, score: Math.min(1, time / 100), passed: time >= 100, note: "seconds" }];
}`;
    const tree = { order: "independent", children: [{ id: "1", name: "alive", metric: "seconds", threshold: ">= 100 s", partial: "time / 100 s" }] };
    const replies: Record<string, string> = {
      judge_decomposition: JSON.stringify({ criteria: tree }),
      judge_decomposition_review: JSON.stringify({ change: false, findings: "complete" }),
      judge_code: JSON.stringify({ code }),
      judge_loophole_review: JSON.stringify({ loophole: false, findings: "none" }),
    };
    const s = await startFakeEndpoint({ delayMs: 1, reply: (b) => replies[(b.response_format as { json_schema: { name: string } }).json_schema.name]! });
    const args = ["search", "--env", "hopper", "--intent", "stay alive for a long time", "--strategy", "p2p", "--budget", "2", "--configs", "2"];
    const rest = ["--train-seeds", "1", "--train-steps", "2048", "--judged-steps", "30", "--out", out, "--trainer-cache", cache];
    let r: Out;
    try {
      r = await start([...args, ...rest, "--judge-model", "judge-m", "--judge-base-url", s.url, "--backend", redis.url]).done;
    } finally {
      await s.close();
    }
    expect(r.status, r.stderr).toBe(0);
    expect(trainedByWorker() - before).toBeGreaterThanOrEqual(2);
    const files = readdirSync(join(out, "trainings"));
    expect(files).toHaveLength(2);
    for (const f of files) {
      const t = TrainingRecord.parse(JSON.parse(readFileSync(join(out, "trainings", f), "utf8")));
      expect(t.judged.length).toBeGreaterThan(0);
      const cps = t.outcome.kind === "result" ? t.outcome.checkpoints : [];
      expect(cps.length).toBeGreaterThan(0);
      // Written by this process in its own jobs folder (kept-policies.ts), not a path the worker named.
      for (const cp of cps) expect(existsSync(cp.policy!) && /-remote-\d+-\d+$/.test(dirname(cp.policy!))).toBe(true);
    }
    const v = await start(["verify", out, "--trainer-cache", cache]).done;
    expect(v.stdout, v.stderr).toMatch(/^identical: /);
  }, 300_000);
});
