/**
 * The Redis backend (docs/ARCHITECTURE.md §7) where it pays: model-latency-bound episodes, played by 1 and by 2
 * `hexa worker` processes (concurrency 1 each). The react agent plays against a local OpenAI-compatible server
 * that answers every chat request after --latency-ms; every answer reads the scene (get_level_state), which never
 * ends an episode, so each episode makes exactly --turns calls. No response cache (the config sets no
 * llm.cacheDir) and no endpoint pre-flight (--no-doctor): every call of the round reaches the server, and the
 * bench checks the server received exactly episodes × turns requests. The same levels and seeds in every run;
 * --repetitions pairs of runs (1 worker, 2 workers; the order alternates), fixed before the run. Before each timed
 * run a warm-up run gives every worker its first episode, which loads the agent's modules (CPU-bound, seconds on a
 * busy machine); its times are kept beside the timed run's, outside its span. Also the queue's
 * overhead per job and how long a kill -9'd worker's job takes to be picked up by another worker.
 * Starts its own redis-server (no persistence) on a free loopback port.
 *
 *   node --import tsx bench/distributed.ts [--levels pass_the_parcel,two_body_problem] [--episodes-per-level 4]
 *        [--turns 3] [--latency-ms 1000] [--repetitions 3] [--noop 300] [--write-page]
 *
 * Every run's raw results go into one data file and the page is rendered from it alone (bench/data-pages.ts):
 * with --write-page both are written under docs/benchmarks/, else the page is printed.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os, { tmpdir } from "node:os";
import { join } from "node:path";
import { Queue, QueueEvents, Worker } from "bullmq";
import { startFakeOpenAI } from "../test/support/fake-openai-server.ts";
import { spawnHexa } from "../test/support/hexa-cli.ts";
import { startRedis } from "../test/support/redis-server.ts";
import { DATA_PAGES, writeDataPage } from "./data-pages.ts";
import { renderDistributedPage, type DistributedData } from "./distributed-page.ts";
import { commandLine, gitCommit, machineInfo, WRITE_PAGE_FLAG } from "./page.ts";
import { BENCH_PAGES } from "./pages.ts";

const flag = (name: string, fallback: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1]! : fallback;
};
const LEVELS = flag("levels", "pass_the_parcel,two_body_problem").split(",");
const PER_LEVEL = Number(flag("episodes-per-level", "4"));
const TURNS = Number(flag("turns", "3"));
const LATENCY_MS = Number(flag("latency-ms", "1000"));
const REPETITIONS = Number(flag("repetitions", "3"));
const NOOP = Number(flag("noop", "300"));
const RECOVERY_LOCK = { lockMs: 2000, stalledMs: 1000 };
const MODEL = "gpt-4.1-mini";
const ANSWER = { name: "get_level_state", args: {} };

const startedAt = new Date().toISOString();
const loadStart = os.loadavg();
const redis = await startRedis();
const connection = { host: "127.0.0.1", port: redis.port, maxRetriesPerRequest: null };
const tmp = mkdtempSync(join(tmpdir(), "hexa-bench-distributed-"));
const say = (line: string) => process.stderr.write(`${line}\n`);
const model = await startFakeOpenAI();

const config = (name: string, o: { llm: boolean; levels: string[]; perLevel: number }) => {
  const path = join(tmp, `${name}.yaml`);
  const agent = o.llm ? `agent: react\nllm:\n  actor:\n    model: ${MODEL}\n    baseURL: ${model.url}\n` : "agent: heuristic\n";
  const levels = `[${o.levels.join(", ")}]`;
  writeFileSync(
    path,
    `name: ${name}\nlevels: ${levels}\n${agent}evolver: heuristic\ninit: online\nrounds: 1\nepisodesPerRound: ${o.perLevel}\nactor:\n  maxTurns: ${TURNS}\n`,
  );
  return path;
};

interface Proc {
  kill: (signal: NodeJS.Signals) => void;
  stderr: () => string;
  done: Promise<{ status: number | null }>;
}
const hexa = (args: string[]): Proc => {
  let err = "";
  const p = spawnHexa(args, { env: { OPENAI_API_KEY: "bench" }, onStderr: (s) => (err = s) });
  return { kill: (s) => p.child.kill(s), stderr: () => err, done: p.done };
};
const until = async (cond: () => boolean, ms = 120_000) => {
  const t0 = Date.now();
  while (!cond()) {
    if (Date.now() - t0 > ms) throw new Error("bench: timed out");
    await new Promise((r) => setTimeout(r, 20));
  }
};
const worker = async (lock: string[] = []): Promise<Proc> => {
  // A worker sends model requests only to endpoints it allows (docs/security.md): the scripted model's.
  const w = hexa(["worker", "--redis", redis.url, ...lock, "--allow-endpoint", model.url]);
  await until(() => w.stderr().includes(" at once per queue"));
  return w;
};
const stop = async (ws: Proc[]) => {
  for (const w of ws) w.kill("SIGINT");
  await Promise.all(ws.map((w) => w.done));
};

/** The run's finished jobs in Redis, as episodes; the run's name prefixes its job ids. */
const jobsOf = async (name: string): Promise<{ episodes: DistributedData["runs"][number]["episodes"]; spanS: number }> => {
  const q = new Queue("hexa-episodes", { connection });
  const jobs = (await q.getJobs(["completed"])).filter((j) => j.id?.startsWith(`${name}__`));
  await q.close();
  const episodes = jobs.map((j) => {
    const m = /\/([a-z_]+)\/r\d+\/s(\d+)$/.exec(j.id!);
    if (!m) throw new Error(`bench: job id ${j.id} is not <run>/<stream>/<level>/r<round>/s<seed>`);
    return { level: m[1]!, seed: Number(m[2]), ms: j.finishedOn! - j.processedOn!, worker: j.processedBy ?? "?" };
  });
  const spanS = (Math.max(...jobs.map((j) => j.finishedOn!)) - Math.min(...jobs.map((j) => j.processedOn!))) / 1000;
  return { episodes: episodes.sort((a, b) => a.level.localeCompare(b.level) || a.seed - b.seed), spanS };
};

/** Queues `expected` scripted answers, runs `hexa run` on `path` with the backend, and fails unless it exited 0 with exactly those calls. */
const playRun = async (name: string, path: string, expected: number): Promise<{ calls: number; commandS: number }> => {
  const before = model.requests.length;
  model.push(...Array.from({ length: expected }, () => ({ toolCalls: [ANSWER], delayMs: LATENCY_MS })));
  const t0 = performance.now();
  const run = hexa(["run", path, "--runs-dir", join(tmp, "runs"), "--backend", redis.url, "--no-doctor"]);
  const { status } = await run.done;
  const commandS = (performance.now() - t0) / 1000;
  const calls = model.requests.length - before;
  if (status !== 0 || calls !== expected) throw new Error(`bench: ${name}: exit ${status}, ${calls} calls of ${expected} expected: ${run.stderr()}`);
  return { calls, commandS };
};

/** One episode per worker, each worker's first: it loads the agent's modules, so the timed run finds every worker warm. */
const warmUp = async (name: string, workers: number): Promise<DistributedData["runs"][number]["warmup"]> => {
  await playRun(name, config(name, { llm: true, levels: [LEVELS[0]!], perLevel: workers }), workers * TURNS);
  const { episodes } = await jobsOf(name);
  if (new Set(episodes.map((e) => e.worker)).size !== workers) throw new Error(`bench: ${name}: the warm-up episodes did not go one to each worker`);
  return episodes;
};

/** One round of LEVELS × PER_LEVEL react episodes with `workers` warm workers; fails unless every call reached the server. */
const latencyRun = async (repetition: number, workers: number): Promise<DistributedData["runs"][number]> => {
  const name = `r${repetition}-w${workers}`;
  const ws = await Promise.all(Array.from({ length: workers }, () => worker()));
  const warmup = await warmUp(`${name}-warmup`, workers);
  const expected = LEVELS.length * PER_LEVEL * TURNS;
  const started = new Date().toISOString();
  const load = os.loadavg();
  const { calls, commandS } = await playRun(name, config(name, { llm: true, levels: LEVELS, perLevel: PER_LEVEL }), expected);
  await stop(ws);
  const { episodes, spanS } = await jobsOf(name);
  if (episodes.length * TURNS !== expected) throw new Error(`bench: ${name}: ${episodes.length} jobs completed, expected ${expected / TURNS}`);
  return { repetition, workers, commit: gitCommit(), started, loadStart: load, spanS, commandS, calls, episodes, warmup };
};

/** add → completed, one job at a time, through a no-op worker: what the queue adds to every job. */
const overheadMs = async (): Promise<number> => {
  const q = new Queue("bench-noop", { connection });
  const events = new QueueEvents("bench-noop", { connection });
  const w = new Worker("bench-noop", async () => ({ ok: true }), { connection, concurrency: 1 });
  await Promise.all([q.waitUntilReady(), events.waitUntilReady(), w.waitUntilReady()]);
  const t0 = performance.now();
  // Kept on completion: a job removed as it completes can be gone before waitUntilFinished looks for it.
  for (let i = 0; i < NOOP; i++) await (await q.add("noop", { i })).waitUntilFinished(events);
  const ms = (performance.now() - t0) / NOOP;
  await Promise.all([w.close(), events.close()]);
  await q.obliterate({ force: true });
  await q.close();
  return ms;
};

/** kill -9 of the worker playing the only job (a heuristic episode) → the moment another worker starts it. */
const recoveryS = async (): Promise<number> => {
  const lock = ["--lock-ms", String(RECOVERY_LOCK.lockMs), "--stalled-ms", String(RECOVERY_LOCK.stalledMs)];
  const ws = await Promise.all([worker(lock), worker(lock)]);
  const path = config("recovery", { llm: false, levels: [LEVELS[0]!], perLevel: 1 });
  const run = hexa(["run", path, "--runs-dir", join(tmp, "runs"), "--backend", redis.url]);
  await until(() => ws.some((w) => / started \(attempt 1\)/.test(w.stderr())));
  // The one that took the job dies; the other, idle and ready, must take it over.
  const [a, b] = / started /.test(ws[0]!.stderr()) ? [ws[0]!, ws[1]!] : [ws[1]!, ws[0]!];
  const killed = performance.now();
  a.kill("SIGKILL");
  await until(() => / started /.test(b.stderr()));
  const s = (performance.now() - killed) / 1000;
  await run.done;
  await stop([b]);
  return s;
};

/** Each repetition plays both worker counts; the order alternates so that a drift in the machine's load favours neither. */
const latencyRuns = async (): Promise<DistributedData["runs"]> => {
  const runs: DistributedData["runs"] = [];
  for (let r = 0; r < REPETITIONS; r++) {
    for (const workers of r % 2 === 0 ? [1, 2] : [2, 1]) {
      say(`bench: repetition ${r + 1} of ${REPETITIONS}, ${workers} worker(s): ${LEVELS.length * PER_LEVEL} episodes × ${TURNS} calls of ${LATENCY_MS} ms…`);
      runs.push(await latencyRun(r, workers));
    }
  }
  return runs;
};

const measure = async (): Promise<DistributedData> => {
  const runs = await latencyRuns();
  say(`bench: ${NOOP} no-op jobs…`);
  const queueOverheadMs = await overheadMs();
  say("bench: a killed worker's job…");
  const seconds = await recoveryS();
  const m = machineInfo();
  return {
    schemaVersion: 1,
    command: commandLine(),
    machine: `${m.cpu}, ${m.cores} cores, ${m.memoryGiB} GiB memory, Node ${m.node}, ${m.platform}`,
    started: startedAt,
    finished: new Date().toISOString(),
    loadStart,
    loadEnd: os.loadavg(),
    setup: {
      agent: "react",
      model: MODEL,
      latencyMs: LATENCY_MS,
      callsPerEpisode: TURNS,
      answer: `a ${ANSWER.name} call`,
      cache: "off (the runs' config sets no llm.cacheDir)",
      concurrencyPerWorker: 1,
    },
    repetitions: REPETITIONS,
    runs,
    queueOverheadMs,
    recovery: { seconds, ...RECOVERY_LOCK },
  };
};

try {
  const data = await measure();
  if (process.argv.includes(WRITE_PAGE_FLAG)) writeDataPage("distributed", data);
  else process.stdout.write(renderDistributedPage(data, BENCH_PAGES.distributed.title, `data/${DATA_PAGES.distributed!.file}`));
} finally {
  await Promise.all([redis.kill(), model.close()]);
  rmSync(tmp, { recursive: true, force: true });
}
