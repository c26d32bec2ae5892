import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeOpenAI, type FakeOpenAI } from "../support/fake-openai-server.ts";
import { spawnHexa } from "../support/hexa-cli.ts";
import { startRedis, type RedisServer } from "../support/redis-server.ts";

/**
 * Secrets never leave the process they were given to (docs/security.md): with every secret of the config set to
 * one canary (each role's apiKey, the embedding's apiKey, the password in backend:), and the Redis password
 * and job key set to it as well, a run played by a worker through a password-protected Redis leaves the canary
 * in no Redis key, no file of the run or of the worker's runs folder, no request to the model and no output.
 */

const CANARY = "CANARY-7f3a9c21-d0e5-secret";

let redis: RedisServer;
let server: FakeOpenAI;
let tmp: string;
beforeAll(async () => {
  [redis, server] = await Promise.all([startRedis({ password: CANARY }), startFakeOpenAI()]);
  tmp = mkdtempSync(join(tmpdir(), "hexa-canary-"));
});
afterAll(async () => {
  await Promise.all([redis?.kill(), server?.close()]);
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

/** Every string Redis holds, each key read as its type asks. */
const redisContents = async (): Promise<string[]> => {
  const r = new Redis({ host: "127.0.0.1", port: redis.port, password: CANARY });
  try {
    const out: string[] = [];
    for (const key of await r.keys("*")) {
      out.push(key);
      const type = await r.type(key);
      if (type === "string") out.push((await r.get(key)) ?? "");
      else if (type === "hash") out.push(JSON.stringify(await r.hgetall(key)));
      else if (type === "list") out.push(...(await r.lrange(key, 0, -1)));
      else if (type === "set") out.push(...(await r.smembers(key)));
      else if (type === "zset") out.push(...(await r.zrange(key, "0", "-1", "WITHSCORES")));
      else if (type === "stream") out.push(JSON.stringify(await r.xrange(key, "-", "+")));
      else out.push(`unread type ${type} of ${key}`);
    }
    return out;
  } finally {
    r.disconnect();
  }
};

const filesUnder = (dir: string): Array<{ path: string; text: string }> =>
  existsSync(dir)
    ? readdirSync(dir).flatMap((name) => {
        const p = join(dir, name);
        return statSync(p).isDirectory() ? filesUnder(p) : [{ path: p, text: readFileSync(p, "latin1") }];
      })
    : [];

describe("every secret set to a canary", () => {
  it("a run through a worker and a password-protected Redis leaves the canary nowhere", async () => {
    const backend = `redis://:${CANARY}@127.0.0.1:${redis.port}`;
    const cfg = join(tmp, "canary.yaml");
    writeFileSync(
      cfg,
      `levels: [two_body_problem]
agent: react
evolver: heuristic
rounds: 1
episodesPerRound: 1
backend: "${backend}"
llm:
  actor: {model: m, baseURL: "${server.url}", apiKey: ${CANARY}, maxRetries: 0, timeoutMs: 5000}
  evolver: {apiKey: ${CANARY}}
  synthesiser: {apiKey: ${CANARY}}
skillIndex:
  embedding: {provider: openai, model: e, apiKey: ${CANARY}}
`,
    );
    const commit = { text: "Commit.", toolCalls: [{ name: "finish", args: { x: -4.3, y: 4.3, radius: 0.1 } }] };
    server.push(commit);
    const workerRuns = join(tmp, "worker-runs");
    let workerErr = "";
    const worker = spawnHexa(["worker", "--redis", `redis://127.0.0.1:${redis.port}`, "--runs-dir", workerRuns, "--allow-endpoint", server.url], {
      env: { HEXA_REDIS_PASSWORD: CANARY, HEXA_JOB_KEY: CANARY, HEXA_ACTOR_API_KEY: "worker-own-key" },
      onStderr: (s) => (workerErr = s),
    });
    try {
      const t0 = Date.now();
      while (!workerErr.includes(" at once per queue")) {
        if (Date.now() - t0 > 30_000 || worker.child.exitCode !== null) throw new Error(`worker did not start: ${workerErr}`);
        await new Promise((r) => setTimeout(r, 50));
      }
      const runs = join(tmp, "runs");
      const run = await spawnHexa(["run", cfg, "--runs-dir", runs], { env: { HEXA_JOB_KEY: CANARY, HEXA_QUEUE_CHECK_MS: "300" } }).done;
      expect(run.status, run.stderr).toBe(0);
      // The run was played by the worker, through the model: the scan below covers the LLM path.
      expect(server.requests.length).toBe(1);
      expect(workerErr).toMatch(/episodes job \S+ done/);

      const stored = await redisContents();
      expect(stored.length).toBeGreaterThan(0);
      expect(stored.join("\n")).toContain("two_body_problem");
      const files = [...filesUnder(runs), ...filesUnder(workerRuns)];
      expect(files.some((f) => f.path.endsWith("config.yaml"))).toBe(true);
      const hits = [
        ...stored.filter((s) => s.includes(CANARY)).map((s) => `redis: ${s.slice(0, 200)}`),
        ...files.filter((f) => f.text.includes(CANARY)).map((f) => `file: ${f.path}`),
        ...server.requests.filter((r) => JSON.stringify(r).includes(CANARY)).map((r) => `request: ${r.path}`),
        ...(run.stdout.includes(CANARY) || run.stderr.includes(CANARY) ? ["hexa run's output"] : []),
      ];
      worker.child.kill("SIGINT");
      const w = await worker.done;
      if (w.stdout.includes(CANARY) || w.stderr.includes(CANARY)) hits.push("hexa worker's output");
      expect(hits).toEqual([]);
    } finally {
      worker.child.kill("SIGKILL");
    }
  }, 120_000);
});
