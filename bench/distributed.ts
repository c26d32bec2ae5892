/**
 * The Redis backend (docs/ARCHITECTURE.md §7) on this machine: a round's episodes per second with 1 and 2 `hexa worker`
 * processes (concurrency 1 each), the queue's overhead per job, and how long a kill -9'd worker's job takes to
 * be picked up by another worker. The episodes are the heuristic agent's on pass_the_parcel with a 10-turn
 * budget (it fails most seeds, so each episode simulates all 10 placements: the realistic cost of a heuristic
 * episode, CPU-bound: on a 2-core machine two workers share the cores), and, as the LLM agents' episodes are,
 * latency-bound: the react agent on a local OpenAI-compatible server that answers each call after 1 s.
 * Starts its own redis-server (no persistence) on a free loopback port.
 * Run: node --import tsx bench/distributed.ts [--episodes 12] [--noop 300]
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Queue, QueueEvents, Worker } from "bullmq";
import { startFakeOpenAI } from "../test/support/fake-openai-server.ts";
import { spawnHexa } from "../test/support/hexa-cli.ts";
import { startRedis } from "../test/support/redis-server.ts";
import { recordPage } from "./page.ts";

recordPage("distributed");

const flag = (name: string, fallback: string) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1]! : fallback;
};
const EPISODES = Number(flag("episodes", "12"));
const NOOP = Number(flag("noop", "300"));
const LOCK = ["--lock-ms", "2000", "--stalled-ms", "1000"];

const redis = await startRedis();
const connection = { host: "127.0.0.1", port: redis.port, maxRetriesPerRequest: null };
const tmp = mkdtempSync(join(tmpdir(), "hexa-bench-distributed-"));
const say = (line: string) => process.stderr.write(`${line}\n`);

const model = await startFakeOpenAI();
const LATENCY_MS = 1000;
const config = (name: string, episodes: number, llm = false) => {
  const path = join(tmp, `${name}.yaml`);
  const agent = llm ? `agent: react\nllm:\n  actor:\n    model: gpt-4.1-mini\n    baseURL: ${model.url}\n` : "agent: heuristic\n";
  writeFileSync(
    path,
    `name: ${name}\nlevels: [pass_the_parcel]\n${agent}evolver: heuristic\ninit: online\nrounds: 1\nepisodesPerRound: ${episodes}\nactor:\n  maxTurns: 10\n`,
  );
  return path;
};

interface Proc {
  kill: (signal: NodeJS.Signals) => void;
  stderr: () => string;
  done: Promise<unknown>;
}
const hexa = (args: string[]): Proc => {
  let err = "";
  const p = spawnHexa(args, { env: { OPENAI_API_KEY: "bench" }, onStderr: (s) => (err = s) });
  return { kill: (s) => p.child.kill(s), stderr: () => err, done: p.done };
};
const until = async (cond: () => boolean, ms = 60_000) => {
  const t0 = Date.now();
  while (!cond()) {
    if (Date.now() - t0 > ms) throw new Error("bench: timed out");
    await new Promise((r) => setTimeout(r, 20));
  }
};
const worker = async (): Promise<Proc> => {
  // A worker sends model requests only to endpoints it allows (docs/security.md): the scripted model's.
  const w = hexa(["worker", "--redis", redis.url, ...LOCK, "--allow-endpoint", model.url]);
  await until(() => w.stderr().includes(" at once per queue"));
  return w;
};
const stop = async (ws: Proc[]) => {
  for (const w of ws) w.kill("SIGINT");
  await Promise.all(ws.map((w) => w.done));
};

/** The span of a run's jobs in Redis (first start → last finish): a round's rate without process start-up. */
const episodesPerSecond = async (name: string, workers: number, llm = false): Promise<{ rate: number; spanS: number; meanJobMs: number }> => {
  const ws = await Promise.all(Array.from({ length: workers }, worker));
  // Each LLM episode: one call answered with a finish (a miss) after LATENCY_MS.
  if (llm)
    model.push(...Array.from({ length: EPISODES }, () => ({ toolCalls: [{ name: "finish", args: { x: -4.3, y: 4.3, radius: 0.1 } }], delayMs: LATENCY_MS })));
  const run = hexa(["run", config(name, EPISODES, llm), "--runs-dir", join(tmp, "runs"), "--backend", redis.url]);
  await run.done;
  await stop(ws);
  const q = new Queue("hexa-episodes", { connection });
  const jobs = (await q.getJobs(["completed"])).filter((j) => j.id?.startsWith(`${name}__`));
  await q.close();
  if (jobs.length !== EPISODES) throw new Error(`bench: ${name}: ${jobs.length} jobs completed, expected ${EPISODES}: ${run.stderr()}`);
  const start = Math.min(...jobs.map((j) => j.processedOn!));
  const end = Math.max(...jobs.map((j) => j.finishedOn!));
  const spanS = (end - start) / 1000;
  return { rate: EPISODES / spanS, spanS, meanJobMs: jobs.reduce((s, j) => s + (j.finishedOn! - j.processedOn!), 0) / jobs.length };
};

/** add → completed, one job at a time, through a no-op worker: what the queue adds to every job. */
const overheadMs = async (): Promise<number> => {
  const q = new Queue("bench-noop", { connection });
  const events = new QueueEvents("bench-noop", { connection });
  const w = new Worker("bench-noop", async () => ({ ok: true }), { connection, concurrency: 1 });
  await Promise.all([q.waitUntilReady(), events.waitUntilReady(), w.waitUntilReady()]);
  const t0 = performance.now();
  for (let i = 0; i < NOOP; i++) await (await q.add("noop", { i }, { removeOnComplete: true })).waitUntilFinished(events);
  const ms = (performance.now() - t0) / NOOP;
  await Promise.all([w.close(), events.close()]);
  await q.obliterate({ force: true });
  await q.close();
  return ms;
};

/** kill -9 of the worker playing the only job → the moment another worker starts it. */
const recoveryS = async (): Promise<number> => {
  const ws = await Promise.all([worker(), worker()]);
  const run = hexa(["run", config("recovery", 1), "--runs-dir", join(tmp, "runs"), "--backend", redis.url]);
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

try {
  say(`bench: ${EPISODES} episodes with 1 worker…`);
  const one = await episodesPerSecond("one", 1);
  say("bench: …with 2 workers…");
  const two = await episodesPerSecond("two", 2);
  say(`bench: ${EPISODES} react episodes on a ${LATENCY_MS} ms model, 1 worker, then 2…`);
  const llmOne = await episodesPerSecond("llm-one", 1, true);
  const llmTwo = await episodesPerSecond("llm-two", 2, true);
  say(`bench: ${NOOP} no-op jobs…`);
  const overhead = await overheadMs();
  say("bench: a killed worker's job…");
  const recovery = await recoveryS();
  const rows = [
    ["episodes/s, 1 worker (concurrency 1)", `${one.rate.toFixed(2)} (${EPISODES} in ${one.spanS.toFixed(1)} s, ${one.meanJobMs.toFixed(0)} ms/episode)`],
    [
      "episodes/s, 2 workers (concurrency 1 each)",
      `${two.rate.toFixed(2)} (${EPISODES} in ${two.spanS.toFixed(1)} s, ${two.meanJobMs.toFixed(0)} ms/episode; ×${(two.rate / one.rate).toFixed(2)})`,
    ],
    [
      `episodes/s, react on a ${LATENCY_MS} ms model, 1 worker`,
      `${llmOne.rate.toFixed(2)} (${EPISODES} in ${llmOne.spanS.toFixed(1)} s, ${llmOne.meanJobMs.toFixed(0)} ms/episode)`,
    ],
    [
      `episodes/s, react on a ${LATENCY_MS} ms model, 2 workers`,
      `${llmTwo.rate.toFixed(2)} (${EPISODES} in ${llmTwo.spanS.toFixed(1)} s, ${llmTwo.meanJobMs.toFixed(0)} ms/episode; ×${(llmTwo.rate / llmOne.rate).toFixed(2)})`,
    ],
    ["queue overhead per job (add → completed, no-op)", `${overhead.toFixed(2)} ms`],
    ["recovery of a kill -9'd worker's job (lock 2 s, check 1 s)", `${recovery.toFixed(1)} s`],
  ];
  const w = Math.max(...rows.map((r) => r[0]!.length));
  process.stdout.write(
    `| ${"measure".padEnd(w)} | value |\n|${"-".repeat(w + 2)}|-------|\n${rows.map(([k, v]) => `| ${k!.padEnd(w)} | ${v} |`).join("\n")}\n`,
  );
} finally {
  await Promise.all([redis.kill(), model.close()]);
  rmSync(tmp, { recursive: true, force: true });
}
