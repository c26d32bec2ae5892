import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { createTrainerPool, type TrainerPool } from "../../levels/reward-search/trainer/pool.ts";

/**
 * A trainer-cache entry is checked as a fresh result is before it is served (docs/trainer-protocol.md, "What the
 * host checks"): an entry edited by hand or written by someone else (F = 99,999, a policy at /etc/passwd) is a
 * miss with a warning naming the cache, and the job is trained again.
 */

const hostile = fileURLToPath(new URL("./fixtures/hostile-trainer.ts", import.meta.url));
const pools: TrainerPool[] = [];
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.close()));
});

const job = { task: "cartpole", instance: 0, reward: "function reward() { return { total: 1, components: {} }; }", steps: 200, seed: 1, evalSeeds: [2, 3, 4] };

const poolOn = (root: string, logs: string[]) => {
  const pool = createTrainerPool({
    command: [process.execPath, "--import", "tsx", hostile, "honest"],
    jobsDir: join(root, "jobs"),
    cacheDir: join(root, "cache"),
    size: 1,
    startTimeoutMs: 20_000,
    onLog: (l) => logs.push(l),
  });
  pools.push(pool);
  return pool;
};

/** Trains once, so the cache holds the entry; `edit` changes the stored result; returns the second pool's answer. */
const trainAfterEdit = async (edit: (result: Record<string, any>) => void) => {
  const root = mkdtempSync(join(tmpdir(), "hexa-hostile-cache-hits-"));
  const logs: string[] = [];
  const first = await poolOn(root, logs).train(job);
  expect(first.kind).toBe("result");
  const [entry] = readdirSync(join(root, "cache"));
  const path = join(root, "cache", entry!);
  const stored = JSON.parse(readFileSync(path, "utf8")) as Record<string, any>;
  edit(stored.outcome.result);
  writeFileSync(path, JSON.stringify(stored));
  const pool = poolOn(root, logs);
  const second = await pool.train(job);
  return { second, sent: pool.sent, logs };
};

describe("trainer-cache entries the host does not serve", () => {
  it.each([
    ["F = 99,999", (r: Record<string, any>) => (r.final.fitness = 99_999), /final\.fitness: 99999 is outside task cartpole's F range \[0, 500\]/],
    [
      "policy /etc/passwd",
      (r: Record<string, any>) => (r.policy = "/etc/passwd"),
      /policy: "\/etc\/passwd" is not inside the folder of the job that trained it/,
    ],
  ])("an entry edited to %s is a miss with a warning; the job is trained again", async (_name, edit, problem) => {
    const { second, sent, logs } = await trainAfterEdit(edit);
    expect(second.cached).toBe(false);
    expect(sent).toBe(1);
    expect(second.kind === "result" && second.result.final.fitness).toBe(100);
    expect(logs.join("\n")).toMatch(/warning: trainer cache .*cache: the entry for this cartpole job is not served/);
    expect(logs.join("\n")).toMatch(problem);
  });

  it("an entry left as written is served from the cache", async () => {
    const { second, sent } = await trainAfterEdit(() => undefined);
    expect(second.cached).toBe(true);
    expect(sent).toBe(0);
  });
});
