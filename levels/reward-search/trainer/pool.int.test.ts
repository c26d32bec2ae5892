import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { createTrainerPool, type PoolJob, type PoolOptions, type TrainerPool } from "./pool.ts";

const fake = fileURLToPath(new URL("./fixtures/fake-trainer.ts", import.meta.url));
const dir = () => mkdtempSync(join(tmpdir(), "hexa-pool-"));
const rewardWith = (k: number) => `function reward(obs, action, nextObs, info) {\n  const alive = ${k};\n  return { total: alive, components: { alive } };\n}`;
/** The fake trainer's F for some code (the same hash as fixtures/fake-trainer.ts). */
const scoreOf = (code: string) => [...code].reduce((a, c) => (a * 31 + c.charCodeAt(0)) % 1000, 7);
const job = (reward: string, over: Partial<PoolJob> = {}): PoolJob => ({
  task: "fake",
  instance: 0,
  reward,
  steps: 1_000,
  seed: 1,
  evalSeeds: [2, 3, 4],
  ...over,
});

const pools: TrainerPool[] = [];
const pool = (over: Partial<PoolOptions> & { iterMs?: number; count?: string } = {}) => {
  const { iterMs, count, ...rest } = over;
  const p = createTrainerPool({
    command: [process.execPath, "--import", "tsx", fake, "ok"],
    jobsDir: dir(),
    size: 2,
    startTimeoutMs: 20_000,
    env: { ...process.env, FAKE_ITER_MS: String(iterMs ?? 10), ...(count ? { FAKE_COUNT_FILE: count } : {}) } as Record<string, string>,
    ...rest,
  });
  pools.push(p);
  return p;
};
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.close()));
});

describe("trainer pool", () => {
  it("refuses a task the trainer's hello does not list, naming both, and sends it no job", async () => {
    const p = pool();
    await expect(p.train(job(rewardWith(1), { task: "cartpole" }))).rejects.toThrow(
      /^levels: the trainer fake 0\.0\.1 \(rewardSearch\.trainer\.command\) serves fake, not cartpole/,
    );
    expect(p.sent).toBe(0);
  });

  it.each([1, 2])("two concurrent jobs with different reward code each get their own result (%i process(es))", async (size) => {
    const count = join(dir(), "count.txt");
    const p = pool({ size, count, iterMs: 20 });
    const [a, b] = [rewardWith(1), rewardWith(2)];
    const [ra, rb] = await Promise.all([p.train(job(a), { label: "cand-a" }), p.train(job(b), { label: "cand-b" })]);
    for (const [o, code] of [
      [ra, a],
      [rb, b],
    ] as const) {
      expect(o.kind).toBe("result");
      if (o.kind !== "result") continue;
      expect(o.cached).toBe(false);
      expect(o.result.final.fitness).toBe(scoreOf(code));
      expect(o.result.policy.startsWith(o.jobDir!)).toBe(true);
      expect(JSON.parse(readFileSync(o.result.policy, "utf8"))).toEqual({ reward: code });
      expect(readFileSync(join(o.jobDir!, "reward.js"), "utf8")).toBe(code);
      expect(JSON.parse(readFileSync(join(o.jobDir!, "outcome.json"), "utf8")).result.final.fitness).toBe(scoreOf(code));
    }
    expect(ra.jobDir).not.toBe(rb.jobDir);
    expect(ra.jobDir).toMatch(/cand-a-/);
    // Each trainer process numbers its jobs from j1: two processes ran one job each, one process ran j1 and j2.
    const ids = readFileSync(count, "utf8").trim().split("\n").sort();
    expect(ids).toEqual(size === 2 ? ["j1", "j1"] : ["j1", "j2"]);
  });

  it("a repeated candidate is answered from the cache without a train message, also by a resumed run", async () => {
    const count = join(dir(), "count.txt");
    const cacheDir = dir();
    const p = pool({ size: 1, count, cacheDir });
    const first = await p.train(job(rewardWith(3)));
    expect(first).toMatchObject({ kind: "result", cached: false });
    const again = await p.train(job(rewardWith(3)));
    expect(again).toMatchObject({ kind: "result", cached: true, jobDir: null });
    expect(again.kind === "result" && first.kind === "result" && again.result).toEqual(first.kind === "result" && first.result);
    expect(p.sent).toBe(1);
    await p.close();

    const resumed = pool({ size: 1, count, cacheDir });
    expect(await resumed.train(job(rewardWith(3)))).toMatchObject({ kind: "result", cached: true });
    expect(resumed.sent).toBe(0);
    expect(await resumed.train(job(rewardWith(3), { seed: 7 }))).toMatchObject({ kind: "result", cached: false });
    expect(readFileSync(count, "utf8").trim().split("\n")).toEqual(["j1", "j1"]); // one per pool: the first job, then seed 7
  });

  it("the same job asked again while it trains waits for that training: one train message, its outcome shared", async () => {
    const count = join(dir(), "count.txt");
    const p = pool({ size: 2, count, cacheDir: dir(), iterMs: 20 });
    const [a, b, c] = await Promise.all([p.train(job(rewardWith(4))), p.train(job(rewardWith(4))), p.train(job(rewardWith(4), { seed: 9 }))]);
    expect(a).toMatchObject({ kind: "result", cached: false });
    expect(a.shared).toBeUndefined();
    expect(b).toMatchObject({ kind: "result", cached: true, shared: true, jobDir: null, entry: a.entry });
    // The very result, its wall time included: a replay reads one entry for both.
    expect(b.kind === "result" && b.result).toEqual(a.kind === "result" && a.result);
    expect(c).toMatchObject({ kind: "result", cached: false });
    expect(p.sent).toBe(2);
    expect(readFileSync(count, "utf8").trim().split("\n")).toHaveLength(2);
  });

  it("without a cache the same job asked twice at once trains twice", async () => {
    const p = pool({ size: 2, iterMs: 20 });
    const [a, b] = await Promise.all([p.train(job(rewardWith(5))), p.train(job(rewardWith(5)))]);
    expect([a.cached, b.cached, p.sent]).toEqual([false, false, 2]);
  });

  it("a job over its wall-clock budget is budget exceeded, not cached, and the pool goes on", async () => {
    const cacheDir = dir();
    const p = pool({ size: 1, cacheDir, iterMs: 30, budget: { wallMs: 400 } });
    const o = await p.train(job(rewardWith(4), { steps: 1_000_000 }));
    expect(o).toMatchObject({ kind: "error", cached: false, error: { kind: "budget_exceeded" } });
    expect(existsSync(join(o.jobDir!, "outcome.json"))).toBe(true);
    expect(await p.train(job(rewardWith(4), { steps: 500 }))).toMatchObject({ kind: "result", cached: false });
    expect(await p.train(job(rewardWith(4), { steps: 1_000_000 }))).toMatchObject({ kind: "error", cached: false });
  });

  it("a trainer that died is replaced for the next job", async () => {
    const p = pool({ size: 1, cancelGraceMs: 500, command: [process.execPath, "--import", "tsx", fake, "deaf"], iterMs: 30 });
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 300);
    expect(await p.train(job(rewardWith(5), { steps: 1_000_000 }), { signal: ac.signal })).toMatchObject({ kind: "error", error: { kind: "cancelled" } });
    expect(await p.train(job(rewardWith(5), { steps: 300 }))).toMatchObject({ kind: "result" });
  });

  it("a missing command fails every job with the command named", async () => {
    const p = pool({ command: ["/no/such/trainer"] });
    await expect(p.train(job(rewardWith(6)))).rejects.toThrow(/\/no\/such\/trainer.*not found/);
    await expect(p.train(job(rewardWith(6)))).rejects.toThrow(/not found/);
  });
});
