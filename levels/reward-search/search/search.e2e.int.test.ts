import { execa } from "execa";
import { existsSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { createTrainerPool, type TrainerPool } from "../trainer/pool.ts";
import { getTask } from "../tasks/index.ts";
import { runEureka } from "../../../src/search/eureka.ts";
import { jsonlCandidateLog } from "../../../src/search/search-dir.ts";
import { heuristicProposer } from "../proposers/heuristic-proposer.ts";
import { trainerEvaluator } from "./evaluator.ts";

/** The strategies end to end: the heuristic proposer, the built-in PPO trainer, tiny trainings. */
const hexa = fileURLToPath(new URL("../../../bin/hexa.js", import.meta.url));
const dir = () => mkdtempSync(join(tmpdir(), "hexa-search-e2e-"));
const lines = (p: string) => (existsSync(p) ? readFileSync(p, "utf8").split("\n").filter(Boolean) : []);

const pools: TrainerPool[] = [];
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.close()));
});

describe("search end to end (built-in trainer)", () => {
  it("eureka with the heuristic proposer: budget 4 = 4 train messages sent by the pool", async () => {
    const d = dir();
    const pool = createTrainerPool({ jobsDir: join(d, "jobs"), cacheDir: join(d, "cache"), size: 2 });
    pools.push(pool);
    const task = getTask("cartpole");
    const r = await runEureka(
      {
        task,
        instance: task.generate(1),
        seed: 1,
        proposer: heuristicProposer(),
        budget: 4,
        ports: { evaluator: trainerEvaluator(pool, 2048), log: jsonlCandidateLog(d) },
      },
      { samples: 2 },
    );
    expect(pool.sent).toBe(4);
    expect(lines(join(d, "candidates.jsonl"))).toHaveLength(4);
    expect(r.best?.outcome.kind).toBe("result");
    for (const c of r.candidates) expect(c.evalSeeds).not.toContain(c.trainSeed);
  }, 120_000);

  it("hexa search killed with SIGKILL mid-search resumes: exactly the budget, nothing finished retrained", async () => {
    const d = dir();
    const out = join(d, "run");
    const args = [
      hexa,
      "search",
      "cartpole",
      "--strategy",
      "rf-agent",
      "--budget",
      "4",
      "--initial",
      "2",
      "--children",
      "2",
      "--train-steps",
      "2048",
      "--seed",
      "2",
      "--out",
      out,
      "--trainer-cache",
      join(d, "cache"),
      "--processes",
      "1",
      "--final-steps",
      "1024",
    ];
    const file = join(out, "candidates.jsonl");
    const child = execa(process.execPath, args, { detached: true, reject: false });
    const started = Date.now();
    while (lines(file).length < 1 && Date.now() - started < 90_000) await new Promise((r) => setTimeout(r, 100));
    const before = lines(file).length;
    expect(before).toBeGreaterThanOrEqual(1);
    process.kill(-child.pid!, "SIGKILL");
    await child;
    const kept = lines(file).length;
    expect(kept).toBeLessThan(4);
    const again = await execa(process.execPath, args, { reject: false });
    expect(again.exitCode).toBe(0);
    const all = lines(file).map((l) => JSON.parse(l) as { index: number; code: string });
    expect(all).toHaveLength(4);
    expect(all.map((c) => c.index).sort()).toEqual([0, 1, 2, 3]);
    expect(again.stdout).toContain(`4/4 candidates trained`);
    expect(again.stdout).toContain(`${kept} replayed from the log, ${4 - kept} trained now`);
    expect(again.stdout).toMatch(/F of the final policy [\d.]+ on the selection seeds \[17, 18, 19\]/);
    // The final score: three fresh training seeds, none of the search's (16; 17–19), each scored per seed.
    const final = JSON.parse(readFileSync(join(out, "final-scores.json"), "utf8")) as {
      levels: { figures: { fitness: { n: number } }; perSeed: { seed: number; evalSeeds: number[] }[] }[];
    };
    const perSeed = final.levels[0]!.perSeed;
    expect(perSeed).toHaveLength(3);
    expect(final.levels[0]!.figures.fitness.n).toBe(3);
    for (const s of perSeed.flatMap((p) => [p.seed, ...p.evalSeeds])) expect([16, 17, 18, 19]).not.toContain(s);
    expect(again.stdout).toContain("final scores (");
    expect(again.stdout).toContain("best checkpoint during its training (labelled, not the score)");
  }, 240_000);

  it("hexa search writes final-scores.json (schema 3): F, the paired differences, the normalised score and every seed", async () => {
    const d = dir();
    const out = join(d, "run");
    const args = ["search", "cartpole", "--method", "eureka", "--budget", "2", "--train-steps", "4096", "--final-steps", "4096", "--final-trainings", "3"];
    const r = await execa(process.execPath, [hexa, ...args, "--out", out, "--trainer-cache", join(d, "cache"), "--processes", "2"], { reject: false });
    expect(r.stderr).not.toMatch(/hexa: /);
    expect(r.exitCode).toBe(0);
    const file = JSON.parse(readFileSync(join(out, "final-scores.json"), "utf8"));
    expect(file.schemaVersion).toBe(3);
    const [l] = file.levels;
    expect(Object.keys(l.figures)).toEqual(["fitness", "vsSparse", "vsHuman", "normalised"]);
    expect(l.figures.fitness).toMatchObject({ label: "F", n: 3 });
    expect(l.figures.fitness.ci95).toHaveLength(2);
    for (const k of ["vsSparse", "vsHuman"]) expect(l.figures[k]).toMatchObject({ n: 3, ci95: [expect.any(Number), expect.any(Number)] });
    // A value with its interval over the 3 seeds, or null with why (human and sparse not told apart at this budget).
    const n = l.figures.normalised;
    if (n.mean === null) expect(n.why).toMatch(/^human and sparse rewards are not distinguishable at this budget/);
    else expect(n).toMatchObject({ n: 3, ci95: [expect.any(Number), expect.any(Number)] });
    expect(l.perSeed).toHaveLength(3);
    // The search's trainings in env steps: 2 candidates of 4,096.
    expect(l.detail.envSteps).toBe(2 * 4096);
    for (const p of l.perSeed) for (const k of ["fitness", "sparse", "human"]) expect(typeof p[k]).toBe("number");
    // 4,096 steps is not cartpole's scored budget: the file and the printed table say so.
    expect(l.measure).toContain("trained at 4,096 env steps, NOT the task's scored budget");
    expect(r.stdout).toContain("trained at 4,096 env steps, NOT the task's scored budget");
    expect(r.stdout).toMatch(/F [-\d.]+ ± [\d.]+ \[[-\d.]+, [-\d.]+\] \(n 3\)/);
    // The lineage as a report, and how to open it.
    expect(readFileSync(join(out, "report.html"), "utf8")).toContain('"strategy":"eureka","task":"cartpole"');
    expect(r.stdout).toContain(`report: ${join(out, "report.html")} (open it in a web browser`);
  }, 180_000);

  it("hexa search announces its final trainings at the task's scored budget by default (hopper: 1,000,000 env steps)", async () => {
    const d = dir();
    const child = execa(
      process.execPath,
      [hexa, "search", "hopper", "--method", "eureka", "--budget", "1", "--train-steps", "2048", "--out", join(d, "run"), "--trainer-cache", join(d, "cache")],
      { detached: true, reject: false },
    );
    let err = "";
    const announced = new Promise<void>((ok) =>
      child.stderr!.on("data", (b: Buffer) => {
        err += b.toString();
        if (err.includes("final score:")) ok();
      }),
    );
    // Neither the 2,048-step candidate nor the million-step final trainings are waited for: only the plan.
    await Promise.race([announced, child]);
    process.kill(-child.pid!, "SIGKILL");
    await child;
    expect(err).toContain("eureka on hopper seed 0 with heuristic (no LLM): 1 candidates of 2,048 env steps");
    expect(err).toContain(
      "final score: the best reward, the sparse and the human one on 3 fresh seeds each, trained at 1,000,000 env steps, the task's scored budget",
    );
  }, 60_000);
});
