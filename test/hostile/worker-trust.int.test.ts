import type { ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Queue } from "bullmq";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signJob } from "../../src/backend/redis/job-signature.ts";
import { ROOT, spawnHexa } from "../support/hexa-cli.ts";
import { jobOutcome } from "../support/job-outcome.ts";
import { startRedis, type RedisServer } from "../support/redis-server.ts";

/**
 * A worker trusts only its own machine (docs/security.md): jobs written into Redis by someone else (the JSON an
 * attacker with access to Redis would add) are refused once, without retries, with the field named, before
 * any process starts, any file is written or any request is sent. The hostile jobs below carry a valid
 * signature, so it is the worker's own checks that refuse them; unsigned and wrongly signed jobs are refused too.
 */

const KEY = "test-job-key-0123456789abcdef";
const WORKER_KEY = "sk-worker-own-key";
const hexaVersion = { version: (JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string }).version, commit: null };

let redis: RedisServer;
let tmp: string;
let worker: { child: ChildProcess; stderr: () => string };
let listener: Server;
let listenerUrl: string;
const received: Array<{ url: string | undefined; headers: IncomingHttpHeaders }> = [];
const queues: Record<string, Queue> = {};

beforeAll(async () => {
  redis = await startRedis();
  tmp = mkdtempSync(join(tmpdir(), "hexa-hostile-"));
  listener = createServer((req, res) => {
    received.push({ url: req.url, headers: req.headers });
    res.writeHead(500).end();
  });
  await new Promise<void>((ok) => listener.listen(0, "127.0.0.1", ok));
  listenerUrl = `http://127.0.0.1:${(listener.address() as AddressInfo).port}/v1`;
  let err = "";
  const p = spawnHexa(["worker", "--redis", redis.url, "--runs-dir", join(tmp, "runs")], {
    env: { HEXA_JOB_KEY: KEY, OPENAI_API_KEY: WORKER_KEY, OPENAI_BASE_URL: "", HEXA_ACTOR_API_KEY: "" },
    onStderr: (s) => (err = s),
  });
  worker = { child: p.child, stderr: () => err };
  const t0 = Date.now();
  while (!err.includes(" at once per queue")) {
    if (Date.now() - t0 > 30_000 || p.child.exitCode !== null) throw new Error(`worker did not start: ${err}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const connection = { host: "127.0.0.1", port: redis.port, maxRetriesPerRequest: null };
  for (const kind of ["episodes", "trainings"]) queues[kind] = new Queue(`hexa-${kind}`, { connection });
});
afterAll(async () => {
  await Promise.allSettled(Object.values(queues).map((q) => q.close()));
  worker?.child.kill("SIGKILL");
  await Promise.all([redis?.kill(), new Promise((ok) => (listener ? listener.close(ok) : ok(undefined)))]);
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

let n = 0;
/** Adds a job as an attacker would (3 attempts allowed; `sign` null: unsigned), waits for its end: its error (if any) and how often it was tried. */
const inject = async (kind: "episodes" | "trainings", data: object, sign: string | null = KEY) => {
  const jobId = `hostile-${++n}`;
  const queue = queues[kind]!;
  const job = await queue.add(kind === "episodes" ? "episode" : "hello", signJob(sign ?? undefined, kind, jobId, data), {
    jobId,
    attempts: 3,
    backoff: { type: "fixed", delay: 100 },
  });
  const { error } = await jobOutcome(queue, job.id!, 60_000, () => `worker said: ${worker.stderr()}`);
  return { error, attempts: (await queue.getJob(jobId))?.attemptsMade };
};

const episodeJob = (config: Record<string, unknown>, agent = "react") => ({
  schemaVersion: 2,
  hexa: hexaVersion,
  run: "hostile-run",
  config: { family: "interphyre", levels: ["two_body_problem"], agent, actor: { maxTurns: 2 }, ...config },
  episode: { id: `stream/two_body_problem/r1/s${n}`, phase: "stream", level: "two_body_problem", round: 1, seed: 3, agent, bankRound: null },
  bank: { skills: [], mistakes: [] },
});

describe("hexa worker refuses jobs that choose what runs or where it is sent", () => {
  it("a training job naming its own trainer command: refused once, naming trainer.command; no process started", async () => {
    const pwned = join(tmp, "pwned.txt");
    const r = await inject("trainings", {
      schemaVersion: 2,
      hexa: hexaVersion,
      kind: "hello",
      trainer: { trainer: { command: ["sh", "-c", `id > ${pwned}; env >> ${pwned}`] } },
    });
    expect(r.error).toMatch(/trainer\.command: the job names \["sh","-c",.*this worker runs only its own trainer, none \(the built-in trainer\)/);
    expect(r.attempts).toBe(1);
    expect(existsSync(pwned)).toBe(false);
  });

  it("an episode job whose actor endpoint is a listening server the worker does not allow: refused, no request received", async () => {
    const r = await inject("episodes", episodeJob({ llm: { actor: { model: "m", baseURL: listenerUrl, maxRetries: 0 } } }));
    expect(r.error).toMatch(new RegExp(`llm\\.actor\\.baseURL: this worker does not send requests to "${listenerUrl}"`));
    expect(r.attempts).toBe(1);
    expect(received).toEqual([]);
  });

  it("an episode job carrying an API key of its own: refused (a worker's keys are its own)", async () => {
    const r = await inject("episodes", episodeJob({ llm: { actor: { apiKey: "sk-attacker", baseURL: listenerUrl } } }));
    expect(r.error).toMatch(/llm\.actor\.apiKey: the job carries a secret/);
    expect(received).toEqual([]);
  });

  it("unsigned and wrongly signed jobs are refused once, telling to set the same HEXA_JOB_KEY; a signed one is played", async () => {
    const unsigned = await inject("episodes", episodeJob({}, "heuristic"), null);
    expect(unsigned.error).toMatch(/the job is not signed, and this worker takes signed jobs only; set the same HEXA_JOB_KEY/);
    expect(unsigned.attempts).toBe(1);
    const forged = await inject("episodes", episodeJob({}, "heuristic"), "another-key-0123456789abcdef");
    expect(forged.error).toMatch(/the job's signature does not match this worker's job key; set the same HEXA_JOB_KEY/);
    expect(forged.attempts).toBe(1);
    const signed = await inject("episodes", episodeJob({}, "heuristic"));
    expect(signed.error, worker.stderr()).toBeUndefined();
    expect(worker.stderr()).not.toContain(WORKER_KEY);
  });
});
