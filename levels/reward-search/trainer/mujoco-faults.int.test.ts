import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { createTrainerPool } from "./pool.ts";

/**
 * Bad input to the built-in trainer on MuJoCo tasks (docs/spec/reward-search.md §2, §6): each is an error that names
 * its cause, the job's code is kept in its directory, and the trainer process keeps serving.
 */
describe("the built-in trainer on MuJoCo tasks, given bad input", () => {
  const jobsDir = mkdtempSync(join(tmpdir(), "hexa-mujoco-faults-"));
  const pool = createTrainerPool({ jobsDir, size: 1 });
  afterAll(() => pool.close());
  const job = { task: "hopper", instance: 0, steps: 2048, seed: 8, evalSeeds: [9, 10, 11], ppo: { numSteps: 512, minibatchSize: 128, updateEpochs: 2 } };

  it("a reward that returns NaN on a hopper observation is a reward_code error naming the component and its inputs; the code is kept", async () => {
    // torso_z is about 1.25 while the hopper stands, so the square root is of a negative number.
    const nan = `function reward(obs, action, nextObs, info) {\n  const height = Math.sqrt(nextObs.torso_z - 1.5);\n  return { total: height, components: { height } };\n}`;
    const o = await pool.train({ ...job, reward: nan });
    expect(o).toMatchObject({ kind: "error", error: { kind: "reward_code", fault: { kind: "nan" } } });
    expect(o.kind === "error" && o.error.message).toMatch(
      /^reward component "height" is NaN for env 0 of 512 \(inputs: obs\.torso_z=1\.\d+, .*\); guard .*Math\.sqrt/,
    );
    expect(o.jobDir).not.toBeNull();
    expect(readFileSync(join(o.jobDir!, "reward.js"), "utf8")).toBe(nan);
  }, 120_000);

  it("a task the trainer does not serve is refused with the tasks it serves, and a valid hopper job trains after both failures", async () => {
    const alive = `function reward(obs, action, nextObs, info) {\n  const alive = info.healthy;\n  return { total: alive, components: { alive } };\n}`;
    // Refused by the pool from the trainer's hello, naming both sides: no job is sent (the setup's fault, not the code's).
    await expect(pool.train({ ...job, task: "hoper", reward: alive })).rejects.toThrow(/serves .*hopper.*ant.*, not hoper/);
    const ok = await pool.train({ ...job, reward: alive });
    expect(ok.kind).toBe("result");
    if (ok.kind !== "result") return;
    // 4 rollouts of 1 env × 512 steps: the job's numSteps over the task's other settings (its 1 env, not PpoConfig's 8).
    expect(ok.result.steps).toBe(2048);
    expect(existsSync(ok.result.policy)).toBe(true);
    expect(ok.result.final.perSeed.map((s) => s.seed)).toEqual([9, 10, 11]);
  }, 180_000);
});
