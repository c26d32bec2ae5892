import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readPolicyFile } from "../pictures/rollout-gif.ts";
import { createTrainerPool } from "./pool.ts";

/** The built-in trainer keeps the policy of each checkpoint evaluation when a job asks, in the job's own directory. */

const root = mkdtempSync(join(tmpdir(), "hexa-keep-"));
const pool = createTrainerPool({ jobsDir: join(root, "jobs"), cacheDir: join(root, "cache"), size: 1 });
afterAll(async () => {
  await pool.close();
  rmSync(root, { recursive: true, force: true });
});

const reward = `function reward(obs, action, nextObs, info) {\n  const alive = 1;\n  return { total: alive, components: { alive } };\n}`;
const job = { task: "cartpole", instance: 0, reward, steps: 4096, seed: 5, evalSeeds: [6, 7, 8] };

describe("checkpoint policies", () => {
  it("are kept one per checkpoint evaluation, inside the job's directory, and only when asked", async () => {
    const plain = await pool.train(job);
    expect(plain.kind === "result" && plain.result.checkpointPolicies).toBe(undefined);
    const kept = await pool.train({ ...job, keepPolicies: true });
    // Its own cache entry: the plain job's result names no checkpoint policies.
    expect(kept.cached).toBe(false);
    if (kept.kind !== "result") throw new Error(kept.error.message);
    const cps = kept.result.checkpointPolicies!;
    expect(cps.map((c) => c.step)).toEqual(kept.result.fitnessCurve.map((c) => c.step));
    for (const c of cps) {
      expect(dirname(c.policy)).toBe(kept.jobDir);
      const file = readPolicyFile(c.policy);
      expect(file.task).toBe("cartpole");
    }
    // The last checkpoint is the final policy.
    expect(readPolicyFile(cps.at(-1)!.policy).policy).toEqual(readPolicyFile(kept.result.policy).policy);
  });

  it("a cached entry whose checkpoint policies are gone is trained again", async () => {
    const first = await pool.train({ ...job, keepPolicies: true });
    expect(first.cached).toBe(true);
    if (first.kind !== "result") throw new Error("not a result");
    rmSync(first.result.checkpointPolicies![0]!.policy);
    const again = await pool.train({ ...job, keepPolicies: true });
    expect(again.cached).toBe(false);
    expect(again.kind === "result" && again.result.checkpointPolicies!.every((c) => existsSync(c.policy))).toBe(true);
  });
});
