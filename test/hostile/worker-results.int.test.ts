import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Worker } from "bullmq";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hexa, spawnHexa } from "../support/hexa-cli.ts";
import { startRedis, type RedisServer } from "../support/redis-server.ts";

/**
 * Anyone who can write to Redis can answer an episode job in a worker's place (docs/security.md, "What a
 * coordinator checks"). Here a forger takes the first jobs of a run and answers them: with impossible values
 * (turns −1000, a ball of radius −5 at x = 1e308, a negative cost) on a Redis without a job key, and with a
 * plausible episode but no signature when the run has a key. Each forged result is refused with its reason named
 * and the job is queued again; an honest worker then plays it, and the run ends as a run without the forger does:
 * every episode one that can be true, and a bank that `hexa bank show` reads.
 */

const KEY = "test-job-key-0123456789abcdef";
const LEVEL = "two_body_problem";
const CONFIG = `levels: [${LEVEL}]
agent: heuristic
evolver: heuristic
init: off2on
update: evolving
rounds: 1
episodesPerRound: 2
offline:
  episodes: 2
actor:
  maxTurns: 6
bank:
  maxSkills: 2
  maxMistakes: 2
`;
const FORGED = 2;

let redis: RedisServer;
let tmp: string;
let config: string;

beforeAll(async () => {
  redis = await startRedis();
  tmp = mkdtempSync(join(tmpdir(), "hexa-hostile-results-"));
  config = join(tmp, "config.yaml");
  writeFileSync(config, CONFIG);
});
afterAll(async () => {
  await redis?.kill();
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

type EpisodeData = { episode: { level: string; seed: number } };

/** What the forger answers: an Interphyre episode of the job's level and seed, impossible in every way the issue found. */
const impossible = (d: EpisodeData) => ({
  schemaVersion: 2,
  trajectory: {
    schemaVersion: 2,
    level: d.episode.level,
    seed: d.episode.seed,
    agent: "heuristic (no LLM)",
    model: "none (heuristic)",
    success: true,
    turns: -1000,
    maxTurns: 6,
    action: { x: 1e308, y: 0, radius: -5 },
    steps: [],
    usage: { input: 0, output: 0, cached: 0, calls: 0, costUsd: -1 },
    wallMs: 1,
    stopReason: "success",
  },
  retrieved: [],
  usage: [],
  worker: "forger",
});

/** A failure that could be true, written without the job key. */
const plausible = (d: EpisodeData) => {
  const r = impossible(d);
  return {
    ...r,
    trajectory: { ...r.trajectory, success: false, turns: 6, action: null, steps: [], usage: { ...r.trajectory.usage, costUsd: 0 }, stopReason: "budget" },
  };
};

/** A worker of the forger's own (no hexa, no key) on the episode queue: answers the first FORGED jobs it takes, then leaves. */
const startForger = async (answer: (d: EpisodeData) => unknown) => {
  let answered = 0;
  const forger: Worker = new Worker(
    "hexa-episodes",
    async (job) => {
      // Paused before it answers the last one, the forger fetches no further job (a refused one queued again included).
      if (++answered >= FORGED) void forger.pause(true);
      return answer(job.data as EpisodeData);
    },
    { connection: { host: "127.0.0.1", port: redis.port, maxRetriesPerRequest: null } },
  );
  await forger.waitUntilReady();
  return {
    untilDone: async () => {
      const t0 = Date.now();
      while (answered < FORGED) {
        if (Date.now() - t0 > 60_000) throw new Error(`the forger answered ${answered} job(s) only`);
        await new Promise((r) => setTimeout(r, 50));
      }
      await forger.close();
    },
  };
};

/** A run on Redis whose first jobs the forger answers before an honest worker starts: its exit, its stderr and its run directory. */
const runWithForger = async (name: string, answer: (d: EpisodeData) => unknown, env: Record<string, string>) => {
  const runs = join(tmp, name);
  const forger = await startForger(answer);
  const run = spawnHexa(["run", config, "--runs-dir", runs, "--backend", redis.url], { env: { HEXA_QUEUE_CHECK_MS: "300", ...env } });
  await forger.untilDone();
  const worker = spawnHexa(["worker", "--redis", redis.url, "--runs-dir", join(tmp, `${name}-worker`)], { env });
  try {
    const out = await run.done;
    const dirs = existsSync(runs) ? readdirSync(runs).filter((d) => !d.startsWith(".")) : [];
    return { out, dir: join(runs, dirs[0] ?? "none") };
  } finally {
    worker.child.kill("SIGKILL");
  }
};

/** Every recorded episode: within its turn budget, its ball (if any) of a positive radius inside the world. */
const expectEpisodesThatCanBeTrue = (dir: string) => {
  const episodes = readFileSync(join(dir, "episodes.jsonl"), "utf8")
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { trajectory: { turns: number; maxTurns: number; action: { x: number; radius: number } | null; usage: { costUsd: number } } });
  expect(episodes).toHaveLength(4);
  for (const { trajectory: t } of episodes) {
    expect(t.turns).toBeGreaterThanOrEqual(0);
    expect(t.turns).toBeLessThanOrEqual(t.maxTurns);
    expect(t.usage.costUsd).toBeGreaterThanOrEqual(0);
    if (t.action) expect(Math.abs(t.action.x) <= 5 && t.action.radius > 0).toBe(true);
  }
};

describe("forged episode results", () => {
  it("without a job key: impossible values are refused, naming the field; the run ends right and its bank reads", async () => {
    const { out, dir } = await runWithForger("no-key", impossible, { HEXA_JOB_KEY: "" });
    expect(out.status, out.stderr).toBe(0);
    expect(out.stderr).toMatch(
      /a worker's result was refused \(trajectory\.turns: -1000, but 0 steps of a success count 0\); nothing of it is recorded, and the job is queued again/,
    );
    expectEpisodesThatCanBeTrue(dir);
    const bank = await hexa(["bank", "show", dir]);
    expect(bank.status, bank.stderr).toBe(0);
  });

  it("with a job key: a plausible result without the key's signature is refused; the run ends right", async () => {
    const { out, dir } = await runWithForger("key", plausible, { HEXA_JOB_KEY: KEY });
    expect(out.status, out.stderr).toBe(0);
    expect(out.stderr).toMatch(/a worker's result was refused \(job \S+: signature: the result is not signed with the job key/);
    expectEpisodesThatCanBeTrue(dir);
    const bank = await hexa(["bank", "show", dir]);
    expect(bank.status, bank.stderr).toBe(0);
  });
});
