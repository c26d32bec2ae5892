import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { ConfigError } from "../../../src/errors.ts";
import { startTrainer, TrainerError, type TrainerClient, type TrainJob } from "./client.ts";

const fake = fileURLToPath(new URL("./fixtures/fake-trainer.ts", import.meta.url));
const fakeCommand = (mode: string) => [process.execPath, "--import", "tsx", fake, mode];
const dir = () => mkdtempSync(join(tmpdir(), "hexa-trainer-"));
const job = (over: Partial<TrainJob> = {}): TrainJob => ({
  task: "fake",
  instance: 0,
  reward: "function reward() { return { total: 1, components: { alive: 1 } }; }",
  steps: 500,
  seed: 1,
  evalSeeds: [2, 3, 4],
  jobDir: dir(),
  ...over,
});

const open: TrainerClient[] = [];
const start = async (mode: string, env?: Record<string, string>) => {
  const c = await startTrainer({
    command: fakeCommand(mode),
    startTimeoutMs: 20_000,
    cancelGraceMs: 1_500,
    ...(env ? { env: { ...process.env, ...env } as Record<string, string> } : {}),
  });
  open.push(c);
  return c;
};
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

describe("trainer client against fake trainers", () => {
  it("runs a job: hello, progress, result, policy in the job's directory", async () => {
    const c = await start("ok");
    expect(c.hello.trainer).toEqual({ name: "fake", version: "0.0.1" });
    const progress: number[] = [];
    const j = job();
    const o = await c.train(j, { onProgress: (p) => progress.push(p.steps) });
    expect(o.kind).toBe("result");
    if (o.kind !== "result") return;
    expect(o.result.final.perSeed.map((s) => s.seed)).toEqual([2, 3, 4]);
    expect(o.result.policy).toBe(join(j.jobDir, "policy.json"));
    expect(progress.at(-1)).toBe(500);
    expect(progress.length).toBe(5);
  });

  it("reports a reward-code fault as an error outcome with its line, and keeps serving", async () => {
    const c = await start("ok");
    const o = await c.train(job({ reward: "function reward() {\n  return SYNTAX;\n}" }));
    expect(o).toMatchObject({ kind: "error", error: { kind: "reward_code", fault: { line: 2 } } });
    expect((await c.train(job())).kind).toBe("result");
  });

  it("answers an unknown task with an error outcome", async () => {
    const c = await start("ok");
    const o = await c.train(job({ task: "nope" }));
    expect(o).toMatchObject({ kind: "error", error: { kind: "unknown_task" } });
    expect(o.kind === "error" && o.error.message).toMatch(/serves: fake/);
  });

  it("a command that does not exist is a TrainerError naming it", async () => {
    const err = await startTrainer({ command: ["/no/such/hexa-trainer", "--x"] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(TrainerError);
    expect(err).toBeInstanceOf(ConfigError);
    expect((err as TrainerError).reason).toBe("not_found");
    expect((err as Error).message).toMatch(/\/no\/such\/hexa-trainer --x.*not found/);
  });

  it("a trainer that exits at once is a TrainerError with its exit code and stderr", async () => {
    const err = (await start("exit").catch((e: unknown) => e)) as TrainerError;
    expect(err.reason).toBe("exited");
    expect(err.message).toMatch(/fake-trainer\.ts exit.*exited with code 3 before its hello/s);
    expect(err.message).toMatch(/giving up at once/);
  });

  it("a wrong protocol version is a ConfigError naming the command and both versions", async () => {
    const err = (await start("version").catch((e: unknown) => e)) as TrainerError;
    expect(err).toBeInstanceOf(ConfigError);
    expect(err.reason).toBe("version");
    expect(err.message).toMatch(/fake-trainer\.ts version.* speaks trainer protocol 99, hexa speaks protocol 1/);
  });

  it("a banner before the hello is a protocol error", async () => {
    const err = (await start("banner").catch((e: unknown) => e)) as TrainerError;
    expect(err.reason).toBe("protocol");
    expect(err.message).toMatch(/not JSON.*Hi there.*logs go to stderr/);
  });

  it("a trainer that never says hello times out", async () => {
    const err = await startTrainer({ command: fakeCommand("silent"), startTimeoutMs: 1_500 }).catch((e: unknown) => e);
    expect((err as TrainerError).reason).toBe("timeout");
    expect((err as Error).message).toMatch(/no hello within 1500 ms/);
  });

  it("garbage on stdout fails the job in flight with a protocol error, and the client stays failed", async () => {
    const c = await start("garbage");
    const err = (await c.train(job()).catch((e: unknown) => e)) as TrainerError;
    expect(err.reason).toBe("protocol");
    expect(err.message).toMatch(/invalid protocol message|not JSON/);
    expect(err.message).toMatch(/fake-trainer\.ts garbage/);
    expect(c.failure).toBe(err);
    await expect(c.train(job())).rejects.toBe(err);
  });

  it("a crash mid-job fails the job with the exit code and the trainer's last stderr", async () => {
    const c = await start("crash");
    const seen: number[] = [];
    const err = (await c.train(job(), { onProgress: (p) => seen.push(p.steps) }).catch((e: unknown) => e)) as TrainerError;
    expect(seen).toEqual([100]);
    expect(err.reason).toBe("exited");
    expect(err.message).toMatch(/exited with code 1 with 1 job\(s\) in flight \(j1\)/);
    expect(err.message).toMatch(/out of memory in the update step/);
  });

  it("cancel: the trainer stops the job and answers cancelled, then takes the next one", async () => {
    const c = await start("ok", { FAKE_ITER_MS: "20" });
    const ac = new AbortController();
    const t0 = Date.now();
    const p = c.train(job({ steps: 1_000_000 }), { signal: ac.signal, onProgress: (pr) => pr.steps >= 300 && ac.abort() });
    const o = await p;
    expect(o).toMatchObject({ kind: "error", error: { kind: "cancelled" } });
    expect(Date.now() - t0).toBeLessThan(5_000);
    expect(c.failure).toBeNull();
    expect((await c.train(job())).kind).toBe("result");
  });

  it("wall-clock budget: the job is cancelled and reported as budget exceeded", async () => {
    const c = await start("ok", { FAKE_ITER_MS: "20" });
    const t0 = Date.now();
    const o = await c.train(job({ steps: 1_000_000 }), { budget: { wallMs: 600 } });
    expect(o).toMatchObject({ kind: "error", error: { kind: "budget_exceeded" } });
    expect(o.kind === "error" && o.error.message).toMatch(/budget exceeded: job j1 ran past its wall-clock budget of 600 ms/);
    expect(Date.now() - t0).toBeLessThan(4_000);
    expect(c.failure).toBeNull();
  });

  it("env-step budget: a job that trains past it is stopped", async () => {
    const c = await start("ok", { FAKE_ITER_MS: "5" });
    const o = await c.train(job({ steps: 100_000 }), { budget: { maxSteps: 1_000 } });
    expect(o).toMatchObject({ kind: "error", error: { kind: "budget_exceeded" } });
    expect(o.kind === "error" && o.error.message).toMatch(/env-step budget of 1000|over its budget of 1000/);
  });

  it("a trainer that ignores cancel is killed after the grace period; the job ends, the client is failed", async () => {
    const c = await start("deaf", { FAKE_ITER_MS: "20" });
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 300);
    const o = await c.train(job({ steps: 1_000_000 }), { signal: ac.signal });
    expect(o).toMatchObject({ kind: "error", error: { kind: "cancelled" } });
    expect(c.failure?.reason).toBe("timeout");
  });

  it("close sends shutdown and the trainer exits; the count file saw each train message once", async () => {
    const count = join(dir(), "count.txt");
    const c = await start("ok", { FAKE_COUNT_FILE: count });
    await c.train(job());
    await c.train(job());
    await c.close();
    expect(readFileSync(count, "utf8").trim().split("\n")).toEqual(["j1", "j2"]);
    expect(c.failure?.reason).toBe("exited");
  });
});
