import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { runConformance } from "./conformance.ts";
import { createTrainerPool } from "./pool.ts";

/** The built-in trainer (bin/hexa-trainer.js: tasks, sandbox, PPO) behind the protocol, with tiny budgets. */

describe("the built-in trainer", () => {
  it("passes the conformance check", async () => {
    const checks = await runConformance({ steps: 2048 });
    const failed = checks.filter((c) => !c.ok).map((c) => `${c.name}: ${c.detail}`);
    expect(failed).toEqual([]);
    expect(checks.length).toBeGreaterThanOrEqual(9);
  });

  const pool = createTrainerPool({ jobsDir: mkdtempSync(join(tmpdir(), "hexa-builtin-")), size: 2 });
  afterAll(() => pool.close());

  it("two concurrent jobs with different reward code each train on their own code", async () => {
    const alive = `function reward(obs, action, nextObs, info) {\n  const alive = 1;\n  return { total: alive, components: { alive } };\n}`;
    const upright = `function reward(obs, action, nextObs, info) {\n  const upright = -Math.abs(nextObs.theta);\n  return { total: upright, components: { upright } };\n}`;
    const base = { task: "cartpole", instance: 0, steps: 2048, seed: 5, evalSeeds: [6, 7, 8] };
    const progress = { a: 0, b: 0 };
    const clipFracs: Array<number | null | undefined> = [];
    const [a, b] = await Promise.all([
      pool.train({ ...base, reward: alive }, { label: "alive", onProgress: (p) => (progress.a++, clipFracs.push(p.losses?.clipFrac)) }),
      pool.train({ ...base, reward: upright }, { label: "upright", onProgress: () => progress.b++ }),
    ]);
    expect(a.kind === "result" && b.kind === "result").toBe(true);
    if (a.kind !== "result" || b.kind !== "result") return;
    expect(Object.keys(a.result.components)).toEqual(["alive"]);
    expect(Object.keys(b.result.components)).toEqual(["upright"]);
    expect(a.result.components.alive!.every((s) => s.mean === 1)).toBe(true);
    expect(b.result.components.upright!.every((s) => s.max <= 0)).toBe(true);
    expect(a.jobDir).not.toBe(b.jobDir);
    for (const o of [a, b]) {
      expect(o.result.policy).toBe(join(o.jobDir!, "policy.json"));
      expect(existsSync(o.result.policy)).toBe(true);
      expect(o.result.final.perSeed.map((s) => s.seed)).toEqual([6, 7, 8]);
      expect(o.result.steps).toBe(2048);
    }
    expect(readFileSync(join(a.jobDir!, "reward.js"), "utf8")).toBe(alive);
    expect(progress.a).toBeGreaterThan(0);
    expect(progress.b).toBeGreaterThan(0);
    // The loss diagnostics cross the protocol with each progress line.
    expect(clipFracs.length).toBe(progress.a);
    for (const f of clipFracs) expect(typeof f).toBe("number");
  });

  it("a reward that throws at run time is an error with its line; the trainer keeps serving", async () => {
    const bad = `function reward(obs, action, nextObs, info) {\n  const x = 1;\n  throw new Error("no reward for you");\n}`;
    const o = await pool.train({ task: "cartpole", instance: 0, reward: bad, steps: 2048, seed: 5, evalSeeds: [6, 7, 8] });
    expect(o).toMatchObject({ kind: "error", error: { kind: "reward_code", fault: { line: 3 } } });
    expect(o.kind === "error" && o.error.message).toMatch(/no reward for you/);
    const h = await pool.hello();
    expect(h.trainer.name).toBe("hexa-ppo");
    expect(h.tasks.map((t) => t.id)).toContain("cartpole");
  });
});
