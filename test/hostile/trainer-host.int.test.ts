import { existsSync, mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { execa } from "execa";
import { afterEach, describe, expect, it } from "vitest";
import { TrainerError } from "../../levels/reward-search/trainer/client.ts";
import { createTrainerPool, type PoolOptions, type TrainerPool } from "../../levels/reward-search/trainer/pool.ts";

const hostile = fileURLToPath(new URL("./fixtures/hostile-trainer.ts", import.meta.url));
const hexaBin = fileURLToPath(new URL("../../bin/hexa.js", import.meta.url));
const pools: TrainerPool[] = [];
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.close()));
});

const setup = (mode: string, over: Partial<PoolOptions> = {}) => {
  const root = mkdtempSync(join(tmpdir(), "hexa-hostile-trainer-"));
  const pool = createTrainerPool({
    command: [process.execPath, "--import", "tsx", hostile, mode],
    jobsDir: join(root, "jobs"),
    cacheDir: join(root, "cache"),
    size: 1,
    startTimeoutMs: 20_000,
    cancelGraceMs: 500,
    ...over,
  });
  pools.push(pool);
  const job = {
    task: "cartpole",
    instance: 0,
    reward: "function reward() { return { total: 1, components: {} }; }",
    steps: 200,
    seed: 1,
    evalSeeds: [2, 3, 4],
  };
  /** What the host kept of the job: cache entries and outcome files. */
  const kept = () => ({
    cached: existsSync(join(root, "cache")) ? readdirSync(join(root, "cache")) : [],
    outcomes: readdirSync(join(root, "jobs")).filter((d) => existsSync(join(root, "jobs", d, "outcome.json"))),
  });
  return { pool, job, kept };
};

describe("results the host does not record", () => {
  it.each([
    ["foreign-seeds", /final\.perSeed: F on seeds \[7, 8, 9\], not on the evaluation seeds sent \[2, 3, 4\]/],
    ["huge-f", /final\.fitness: 99999 is outside task cartpole's F range \[0, 500\]/],
    ["etc-passwd", /policy: "\/etc\/passwd" is not inside the job's directory/],
    ["symlink", /policy: ".*policy-link\.json" leads to \/etc\/passwd, outside the job's directory/],
  ])("a trainer answering %s is a TrainerError naming the command and the field; nothing is recorded or cached", async (mode, field) => {
    const { pool, job, kept } = setup(mode);
    const err = await pool.train(job).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TrainerError);
    expect((err as Error).message).toContain(`hostile-trainer.ts ${mode}`);
    expect((err as Error).message).toMatch(field);
    expect(kept()).toEqual({ cached: [], outcomes: [] });
  });
});

describe("lines over the length limit", () => {
  it("a valid result padded to a 20 MB line is a TrainerError naming the command and the limit", async () => {
    const { pool, job, kept } = setup("long-result", { maxLineBytes: 4 * 1024 * 1024 });
    const err = await pool.train(job).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TrainerError);
    expect((err as Error).message).toMatch(/hostile-trainer\.ts long-result.*printed a line longer than 4194304 bytes/);
    expect(kept()).toEqual({ cached: [], outcomes: [] });
  });

  it("a line that never ends fails the trainer once it passes the limit, before its end", async () => {
    const { pool, job } = setup("endless-line", { maxLineBytes: 4 * 1024 * 1024 });
    const err = await pool.train(job, { budget: { wallMs: 30_000 } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TrainerError);
    expect((err as Error).message).toMatch(/hostile-trainer\.ts endless-line.*printed a line longer than 4194304 bytes/);
  });
});

describe("a trainer that never answers", () => {
  it("is cancelled at the job's default deadline, with a message naming the command and the deadline", async () => {
    const { pool, job } = setup("mute", { deadline: { floorMs: 300, msPerStep: 1 } });
    const o = await pool.train(job);
    expect(o).toMatchObject({ kind: "error", cached: false, error: { kind: "budget_exceeded" } });
    expect(o.kind === "error" && o.error.message).toMatch(/ran past its default deadline of 500 ms \(for 200 env steps.*hostile-trainer\.ts mute/);
  }, 30_000);
});

describe("hexa search --wall-ms", () => {
  it("cancels every training past it with a message naming the trainer and the budget, and the search still ends", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "hexa-hostile-search-"));
    const args = ["search", "cartpole", "--method", "eureka", "--budget", "1", "--train-steps", "5000000", "--final-trainings", "1"];
    const r = await execa(process.execPath, [hexaBin, ...args, "--processes", "1", "--wall-ms", "1500"], { cwd, reject: false });
    expect(r.stderr).toMatch(/#\s+0 initial\s+✗ budget_exceeded/);
    const [candidate] = readFileSync(join(cwd, "runs", "search", "eureka-cartpole-s0", "candidates.jsonl"), "utf8")
      .trim()
      .split("\n");
    expect(JSON.parse(candidate!).outcome.message).toMatch(/ran past its wall-clock budget of 1500 ms on the built-in trainer/);
    expect(r.stdout).toMatch(/no candidate trained successfully/);
    expect(r.exitCode).toBe(0);
  }, 90_000);

  it("refuses a value that is not a positive whole number of milliseconds, naming the flag", async () => {
    const r = await execa(process.execPath, [hexaBin, "search", "cartpole", "--method", "eureka", "--wall-ms", "0"], { reject: false });
    expect(r.stderr).toMatch(/--wall-ms: .*(got 0)/);
    expect(r.exitCode).toBe(2);
  });
});

describe("hexa trainer check on a trainer that crashes mid-job", () => {
  it("shows the stderr the trainer left, once, under the failed check", async () => {
    const fake = fileURLToPath(new URL("../../levels/reward-search/trainer/fixtures/fake-trainer.ts", import.meta.url));
    const r = await execa(process.execPath, [hexaBin, "trainer", "check", "--", process.execPath, "--import", "tsx", fake, "crash"], { reject: false });
    expect(r.stdout).toMatch(
      /FAIL\s+a tiny job streams progress and a valid result .*exited with code 1 .*; its stderr ended with:\n\s+fake trainer: out of memory in the update step\n/,
    );
    expect(r.stdout.split("out of memory in the update step")).toHaveLength(2);
    expect(r.exitCode).toBe(1);
  });
});
