/**
 * The Redis workers page as a pure function of its data (docs/benchmarks/data/distributed.json): every run of
 * model-latency-bound episodes with 1 and with 2 `hexa worker` processes (each episode's level, seed and time, the
 * span of the run's jobs, the model calls that reached the server, the commit and the load at its start), from
 * which the table, the speed-up per repetition and its spread are computed again on every render.
 */
import { z } from "zod";

const Episode = z.strictObject({
  level: z.string(),
  seed: z.number().int().min(0),
  /** The job's time on its worker (started → finished), in ms. */
  ms: z.number().min(0),
  /** The worker process that played it. */
  worker: z.string(),
});

const WorkerRun = z.strictObject({
  repetition: z.number().int().min(0),
  workers: z.number().int().min(1),
  commit: z.string(),
  started: z.string(),
  /** os.loadavg() at the run's start (1, 5, 15 min). */
  loadStart: z.array(z.number()).length(3),
  /** First job started → last job finished, from the jobs' times in Redis: the round without process start-up. */
  spanS: z.number().positive(),
  /** The `hexa run` process, start to exit (start-up, forecast and the round's records included). */
  commandS: z.number().positive(),
  /** Chat requests the model server received during the run: every call reached it, none was answered by a cache. */
  calls: z.number().int().min(0),
  episodes: z.array(Episode).min(1),
  /**
   * Each worker's first episode, played by a warm-up run before the timed one (a worker loads the agent's modules
   * with its first model-driven episode, CPU-bound); outside the span.
   */
  warmup: z.array(Episode).min(1),
});
type WorkerRun = z.infer<typeof WorkerRun>;

export const DistributedData = z.strictObject({
  schemaVersion: z.literal(1),
  command: z.string(),
  machine: z.string(),
  started: z.string(),
  finished: z.string(),
  loadStart: z.array(z.number()).length(3),
  loadEnd: z.array(z.number()).length(3),
  setup: z.strictObject({
    agent: z.string(),
    model: z.string(),
    /** Every chat request is answered after this long. */
    latencyMs: z.number().int().min(0),
    /** The actor's turn budget: every answer is a call that does not end the episode, so each episode makes this many. */
    callsPerEpisode: z.number().int().min(1),
    /** The tool call every answer makes. */
    answer: z.string(),
    /** How the model's answers could be cached: the runs' config sets no llm.cacheDir. */
    cache: z.string(),
    concurrencyPerWorker: z.number().int().min(1),
  }),
  repetitions: z.number().int().min(1),
  runs: z.array(WorkerRun).min(2),
  /** add → completed through a no-op worker, per job, in ms. */
  queueOverheadMs: z.number().min(0),
  /** A kill -9'd worker's job started again by another worker, in s, with the lock and check intervals. */
  recovery: z.strictObject({ seconds: z.number().min(0), lockMs: z.number().int(), stalledMs: z.number().int() }),
});
export type DistributedData = z.infer<typeof DistributedData>;

const loads = (l: readonly number[]): string => l.map((v) => v.toFixed(2)).join(" / ");
const mean = (xs: readonly number[]): number => xs.reduce((s, x) => s + x, 0) / xs.length;
const sd = (xs: readonly number[]): number => {
  const m = mean(xs);
  return Math.sqrt(xs.reduce((s, x) => s + (x - m) ** 2, 0) / (xs.length - 1));
};

const episodeKeys = (r: WorkerRun): string =>
  r.episodes
    .map((e) => `${e.level}/s${e.seed}`)
    .sort()
    .join(", ");

/** 2 workers over 1 within each repetition (the two runs of a repetition are played one after the other). */
const speedUps = (d: DistributedData, workers = 2): { repetition: number; speedUp: number }[] =>
  [...new Set(d.runs.map((r) => r.repetition))]
    .sort((a, b) => a - b)
    .flatMap((repetition) => {
      const one = d.runs.find((r) => r.repetition === repetition && r.workers === 1);
      const many = d.runs.find((r) => r.repetition === repetition && r.workers === workers);
      return one && many ? [{ repetition, speedUp: one.spanS / many.spanS }] : [];
    });

const runRow = (d: DistributedData, r: WorkerRun): string => {
  const perWorker = [...new Set(r.episodes.map((e) => e.worker))].map((w) => r.episodes.filter((e) => e.worker === w).length);
  const expectedCalls = r.episodes.length * d.setup.callsPerEpisode;
  const warmup = r.warmup.map((e) => e.ms.toFixed(0)).join(", ");
  return `| ${r.repetition + 1} | ${r.workers} | ${r.episodes.length} | ${r.spanS.toFixed(2)} | ${mean(r.episodes.map((e) => e.ms)).toFixed(0)} | ${perWorker.join(" + ")} | ${r.calls} of ${expectedCalls} | ${r.commandS.toFixed(1)} | ${warmup} | ${loads(r.loadStart)} |`;
};

const speedUpLine = (d: DistributedData): string => {
  const s = speedUps(d).map((x) => x.speedUp);
  if (s.length === 0) return "speed-up, 2 workers over 1: no repetition has both";
  const each = s.map((x) => `×${x.toFixed(2)}`).join(", ");
  const spread =
    s.length >= 2 ? `, sd ${sd(s).toFixed(2)}, min–max ×${Math.min(...s).toFixed(2)} to ×${Math.max(...s).toFixed(2)}` : " (one repetition: no spread)";
  return `speed-up, 2 workers over 1 (span of 1 worker / span of 2, per repetition, n ${s.length}): ${each}; mean ×${mean(s).toFixed(2)}${spread}`;
};

/**
 * The speed-up the episodes' own times allow: 2 workers finish 2 × (1-worker episode time ÷ 2-worker episode time)
 * as many episodes per second when nothing between the jobs costs time; the span's ratio below it is the queue's loss.
 */
const episodeBoundLine = (d: DistributedData): string => {
  const reps = [...new Set(d.runs.map((r) => r.repetition))].sort((a, b) => a - b);
  const bounds = reps.flatMap((repetition) => {
    const msOf = (workers: number) => d.runs.find((r) => r.repetition === repetition && r.workers === workers)?.episodes.map((e) => e.ms);
    const [one, two] = [msOf(1), msOf(2)];
    return one && two ? [`×${((2 * mean(one)) / mean(two)).toFixed(2)}`] : [];
  });
  return `what the episodes' own times allow, 2 × (1-worker ms/episode ÷ 2-worker ms/episode), per repetition: ${bounds.join(", ")}`;
};

/** The model's share of a 1-worker episode: what a second worker can overlap at best. */
const expectedLine = (d: DistributedData): string => {
  const wait = d.setup.callsPerEpisode * d.setup.latencyMs;
  const jobMs = mean(d.runs.filter((r) => r.workers === 1).flatMap((r) => r.episodes.map((e) => e.ms)));
  const share = wait / jobMs;
  return `expected: ×2 where the model's latency dominates; here ${wait} ms of an episode's ${jobMs.toFixed(0)} ms on 1 worker (${(share * 100).toFixed(0)} %) is model wait`;
};

const setupText = (d: DistributedData): string => {
  const s = d.setup;
  const levels = [...new Set(d.runs.flatMap((r) => r.episodes.map((e) => e.level)))].join(", ");
  const same = new Set(d.runs.map(episodeKeys)).size === 1 ? "the same episodes in every run" : "NOT the same episodes in every run";
  return [
    `Model-latency-bound episodes: the ${s.agent} agent (model ${s.model}) on a local OpenAI-compatible server that answers every chat request after ${s.latencyMs} ms. Every answer is ${s.answer}, which does not end the episode, so each episode makes exactly ${s.callsPerEpisode} calls (its turn budget): at least ${s.callsPerEpisode * s.latencyMs} ms of model wait. Response cache: ${s.cache}; "calls" counts the requests the server received.`,
    `Levels ${levels}; episodes ${episodeKeys(d.runs[0]!)} (${same}). Redis backend, workers of concurrency ${s.concurrencyPerWorker}; ${d.repetitions} repetition(s), each a run with 1 worker and a run with 2 (order alternating between repetitions).`,
    'Before each timed run, a warm-up run gives each worker one episode (same calls and latency): a worker loads the agent\'s modules with its first model-driven episode, CPU-bound; "first episode ms" is that episode per worker, outside the span.',
    "span: first job started → last job finished of the timed run, from the jobs' times in Redis (no process start-up); ms/episode: mean time of a job on its worker; command: the timed `hexa run` process, start to exit.",
  ].join("\n");
};

const commitsOf = (d: DistributedData): string => [...new Set(d.runs.map((r) => r.commit))].join("; ");

export const renderDistributedPage = (d: DistributedData, title: string, dataPath: string): string =>
  [
    `# ${title}`,
    "",
    `- Command: \`${d.command}\``,
    `- Commit: ${commitsOf(d)}`,
    `- Machine: ${d.machine}`,
    `- Date: ${d.started} to ${d.finished}`,
    `- Load average (1 / 5 / 15 min): ${loads(d.loadStart)} at start, ${loads(d.loadEnd)} at end`,
    `- Data: [${dataPath}](${dataPath})`,
    "",
    "Rendered from the data file above by bench/distributed-page.ts (a test renders it again and compares):",
    "",
    "```text",
    setupText(d),
    "",
    "| repetition | workers | episodes | span s | ms/episode | episodes per worker | calls | command s | first episode ms | load at start (1 / 5 / 15 min) |",
    "| ---: | ---: | ---: | ---: | ---: | --- | --- | ---: | --- | --- |",
    ...d.runs.map((r) => runRow(d, r)),
    "",
    speedUpLine(d),
    episodeBoundLine(d),
    expectedLine(d),
    `queue overhead per job (add → completed, no-op): ${d.queueOverheadMs.toFixed(2)} ms`,
    `recovery of a kill -9'd worker's job (lock ${d.recovery.lockMs / 1000} s, check ${d.recovery.stalledMs / 1000} s): ${d.recovery.seconds.toFixed(1)} s`,
    "```",
    "",
  ].join("\n");
