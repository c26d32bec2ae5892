import type { ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startFakeOpenAI, type FakeOpenAI, type ScriptItem } from "./support/fake-openai-server.ts";
import { spawnHexa, type Out } from "./support/hexa-cli.ts";
import { startRedis, type RedisServer } from "./support/redis-server.ts";

/**
 * A spend cap over a run played by `hexa worker` processes (docs/spec/method.md §11, docs/ARCHITECTURE.md §7): the coordinator and both workers
 * count in one ledger in Redis. As in budget-cli.int.test.ts, a react episode that commits at once is one call,
 * reported as 100 input and 30,000 output tokens; the server answers only the calls the cap allows.
 */

const ENV = { HEXA_ACTOR_API_KEY: "k", HEXA_QUEUE_CHECK_MS: "300" };
const commit = (): ScriptItem => ({
  text: "Commit.",
  toolCalls: [{ name: "finish", args: { x: -4.3, y: 4.3, radius: 0.1 } }],
  usage: { prompt: 100, completion: 30_000 },
});

let redis: RedisServer;
let server: FakeOpenAI;
let tmp: string;
const live = new Set<ChildProcess>();
let workers: Array<ReturnType<typeof start>>;
beforeAll(async () => {
  [redis, server] = await Promise.all([startRedis(), startFakeOpenAI()]);
  tmp = mkdtempSync(join(tmpdir(), "hexa-redis-budget-"));
  // BullMQ's default 30 s locks: a worker loading the model client on a busy machine must not lose its job to the other.
  // The workers send model requests only to the endpoints they allow: the scripted server's.
  workers = [0, 1].map(() => start(["worker", "--redis", redis.url, "--allow-endpoint", server.url]));
  await Promise.all(
    workers.map((w) =>
      until(
        () => w.stderr().includes(" at once per queue"),
        20_000,
        () => w.stderr(),
      ),
    ),
  );
});
afterAll(async () => {
  for (const c of live) c.kill("SIGKILL");
  await Promise.all([redis?.kill(), server?.close()]);
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

const start = (args: string[]) => {
  let err = "";
  const p = spawnHexa(args, { env: ENV, onStderr: (s) => (err = s) });
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
const config = (name: string, rounds: number, perRound: number): string => {
  const path = join(tmp, name);
  const endpoint = `{model: m, baseURL: ${JSON.stringify(server.url)}, maxRetries: 0, timeoutMs: 5000, maxOutputTokens: 40000}`;
  writeFileSync(
    path,
    `levels: [two_body_problem]\nagent: react\nrounds: ${rounds}\nepisodesPerRound: ${perRound}\nllm: {actor: ${endpoint}, prices: {m: {input: 1, cachedInput: 0.5, output: 2}}}\n`,
  );
  return path;
};
const jsonl = <T>(path: string): T[] =>
  existsSync(path)
    ? readFileSync(path, "utf8")
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as T)
    : [];

describe("hexa run --backend redis:// with a spend cap", () => {
  it("stops the whole run at the cap, whichever worker meets it, and resumes under a raised cap with no episode repeated", async () => {
    const cfg = config("react.yaml", 2, 2);
    const runs = join(tmp, "runs");

    // Round 1's two calls fit under 70,000 tokens; round 2's first would not, on either worker.
    server.push(commit(), commit());
    const first: Out = await start(["run", cfg, "--runs-dir", runs, "--backend", redis.url, "--budget-tokens", "70000", "--yes"]).done;
    expect(first.status, first.stderr).toBe(3);
    expect(first.stderr).toMatch(
      /hexa: stopped: budget — (the next llm\.actor call \(about \$[\d.]+, [\d,]+ tokens\) would cross|another call of this run was refused before this llm\.actor call, at) budget\.tokens 70,000; .* \(on worker [^)]+\); the run is marked stopped: budget/,
    );
    const run = join(runs, readdirSync(runs)[0]!);
    expect(first.stderr).toContain(`hexa run --resume ${run} --budget-tokens 140000`);
    expect(server.requests).toHaveLength(2);
    const kept = jsonl<{ id: string }>(join(run, "episodes.jsonl")).map((e) => e.id);
    expect(kept).toHaveLength(2);
    expect(kept.every((id) => id.startsWith("stream/two_body_problem/r1/"))).toBe(true);
    const usage = jsonl<{ input: number; output: number }>(join(run, "usage.jsonl"));
    expect(usage.reduce((n, u) => n + u.input + u.output, 0)).toBe(60_200);
    const stopped = JSON.parse(readFileSync(join(run, "stopped.json"), "utf8")) as { reason: string; spent: { tokens: number }; cap: unknown };
    expect(stopped).toMatchObject({ reason: "budget", cap: { tokens: 70_000 } });
    expect(stopped.spent.tokens).toBeLessThanOrEqual(70_000);
    // Both round-2 jobs fail on the workers, once each: no retries within the stopped session.
    await until(
      () => workers.flatMap((w) => w.stderr().match(/failed: stopped: budget/g) ?? []).length === 2,
      20_000,
      () => workers.map((w) => w.stderr()).join("\n"),
    );

    server.push(commit(), commit());
    const resumed = await start(["run", "--resume", run, "--backend", redis.url, "--budget-tokens", "200000"]).done;
    expect(resumed.status, resumed.stderr).toBe(0);
    expect(server.requests).toHaveLength(4);
    const all = jsonl<{ id: string }>(join(run, "episodes.jsonl")).map((e) => e.id);
    expect(all.slice(0, 2)).toEqual(kept);
    expect(all).toHaveLength(4);
    expect(new Set(all).size).toBe(4);
    expect(jsonl(join(run, "usage.jsonl"))).toHaveLength(4);
    expect(existsSync(join(run, "stopped.json"))).toBe(false);
  }, 120_000);

  it("an episode stopped after some calls: the worker hands them back, usage.jsonl records them, and the resume counts them", async () => {
    const look: ScriptItem = { text: "Let me look.", toolCalls: [{ name: "get_level_state", args: {} }], usage: { prompt: 100, completion: 30_000 } };
    const runs = join(tmp, "mid");
    const sent = server.requests.length;
    server.push(look);
    const first = await start(["run", config("one.yaml", 1, 1), "--runs-dir", runs, "--backend", redis.url, "--budget-tokens", "50000", "--yes"]).done;
    expect(first.status, first.stderr).toBe(3);
    expect(first.stderr).toMatch(
      /hexa: stopped: budget — the next llm\.actor call .* would cross budget\.tokens 50,000; spent \$[\d.]+ and 30,100 tokens on 1 call\(s\)/,
    );
    expect(server.requests.length - sent).toBe(1);
    const run = join(runs, readdirSync(runs)[0]!);
    expect(jsonl(join(run, "episodes.jsonl"))).toHaveLength(0);
    expect(jsonl<{ output: number }>(join(run, "usage.jsonl")).map((u) => u.output)).toEqual([30_000]);

    server.push(commit());
    const resumed = await start(["run", "--resume", run, "--backend", redis.url, "--budget-tokens", "200000"]).done;
    expect(resumed.status, resumed.stderr).toBe(0);
    expect(resumed.stderr).toMatch(/already spent: \$[\d.]+ and 30,100 tokens on 1 call\(s\)/);
    expect(jsonl(join(run, "episodes.jsonl"))).toHaveLength(1);
    expect(jsonl(join(run, "usage.jsonl"))).toHaveLength(2);
    await Promise.all(
      workers.map((w) => {
        w.child.kill("SIGINT");
        return w.done;
      }),
    );
  }, 120_000);
});
