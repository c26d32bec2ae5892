import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import { describeCommand, startTrainer, TrainerError, type JobOutcome, type JobProgress, type TrainerClient, type TrainJob } from "./client.ts";
import { TRAINER_PROTOCOL_VERSION, type HelloMessage } from "./protocol.ts";

/**
 * `hexa trainer check`: runs a trainer command through every part of the protocol a host relies on and says,
 * check by check, what passed. The built-in trainer must pass all of them (CI runs it with a tiny job).
 */

export interface ConformanceCheck {
  name: string;
  ok: boolean;
  detail: string;
  ms: number;
}

export interface ConformanceOptions {
  command?: readonly string[];
  /** Task of the training checks (default: cartpole when served, else the first task). */
  task?: string;
  /** Env steps of the tiny training job. */
  steps?: number;
  /** A reward the task accepts (default: a constant alive bonus with one component). */
  reward?: string;
  startTimeoutMs?: number;
  /** How long the tiny job may take. */
  jobTimeoutMs?: number;
  onLog?: (line: string) => void;
  /** Called as each check ends (for a live table). */
  onCheck?: (c: ConformanceCheck) => void;
}

const VALID_REWARD = `function reward(obs, action, nextObs, info) {
  const alive = 1;
  return { total: alive, components: { alive } };
}`;
/** A syntax error on line 3. */
const BROKEN_REWARD = `function reward(obs, action, nextObs, info) {
  const alive = 1;
  return { total: alive, components: { alive: } };
}`;

const SEED = 1000;
const EVAL_SEEDS = [1001, 1002, 1003];

class CheckFailed extends Error {}
const expect = (cond: unknown, what: string): void => {
  if (!cond) throw new CheckFailed(what);
};

const withTimeout = <T>(p: Promise<T>, ms: number, what: string): Promise<T> =>
  new Promise<T>((res, rej) => {
    const t = setTimeout(() => rej(new CheckFailed(`${what}: no answer within ${ms} ms`)), ms);
    p.then(
      (v) => (clearTimeout(t), res(v)),
      (e) => (clearTimeout(t), rej(e)),
    );
  });

const outcomeText = (o: JobOutcome) =>
  o.kind === "result" ? `a result (F = ${o.result.final.fitness})` : `error ${o.error.kind}: ${o.error.message.slice(0, 200)}`;

export const runConformance = async (opts: ConformanceOptions = {}): Promise<ConformanceCheck[]> => {
  const checks: ConformanceCheck[] = [];
  const root = mkdtempSync(join(tmpdir(), "hexa-trainer-check-"));
  const startTimeoutMs = opts.startTimeoutMs ?? 60_000;
  const jobTimeoutMs = opts.jobTimeoutMs ?? 300_000;
  let client: TrainerClient | null = null;
  let hello: HelloMessage | null = null;
  let startError: Error | null = null;
  let n = 0;

  const ensure = async (): Promise<TrainerClient> => {
    if (client && !client.failure) return client;
    if (startError) throw new CheckFailed(`the trainer did not start: ${startError.message}`);
    try {
      client = await startTrainer({
        ...(opts.command ? { command: opts.command } : {}),
        startTimeoutMs,
        cancelGraceMs: 10_000,
        ...(opts.onLog ? { onLog: opts.onLog } : {}),
      });
      hello ??= client.hello;
      return client;
    } catch (e) {
      startError = e as Error;
      throw new CheckFailed(`the trainer did not start: ${(e as Error).message}`);
    }
  };

  const check = async (name: string, body: () => Promise<string>) => {
    const t0 = Date.now();
    let ok = true;
    let detail: string;
    try {
      detail = await body();
    } catch (e) {
      ok = false;
      detail = e instanceof CheckFailed || e instanceof TrainerError ? e.message : `${(e as Error)?.stack ?? String(e)}`;
    }
    const c = { name, ok, detail, ms: Date.now() - t0 };
    checks.push(c);
    opts.onCheck?.(c);
  };

  const task = () => {
    const ids = hello!.tasks.map((t) => t.id);
    const id = opts.task ?? (ids.includes("cartpole") ? "cartpole" : ids[0]!);
    expect(ids.includes(id), `task ${id} is not among the served tasks (${ids.join(", ")})`);
    return id;
  };
  const job = (over: Partial<TrainJob> = {}): TrainJob => ({
    task: task(),
    instance: 0,
    reward: opts.reward ?? VALID_REWARD,
    steps: opts.steps ?? 2048,
    seed: SEED,
    evalSeeds: EVAL_SEEDS,
    jobDir: join(root, `job-${++n}`),
    ...over,
  });

  try {
    await check("starts and says hello", async () => {
      const c = await ensure();
      return `${c.hello.trainer.name} ${c.hello.trainer.version} in ${c.startMs} ms`;
    });
    await check(`speaks protocol ${TRAINER_PROTOCOL_VERSION}`, async () => {
      await ensure();
      expect(hello!.protocol === TRAINER_PROTOCOL_VERSION, `hello says protocol ${hello!.protocol}`);
      return `protocol ${hello!.protocol}, concurrency ${hello!.concurrency ?? 1}`;
    });
    await check("hello lists its tasks with descriptions", async () => {
      await ensure();
      expect(hello!.tasks.length > 0, "hello lists no tasks");
      const bare = hello!.tasks.filter((t) => !t.description.trim()).map((t) => t.id);
      expect(bare.length === 0, `tasks without a description: ${bare.join(", ")}`);
      const ids = hello!.tasks.map((t) => t.id);
      expect(new Set(ids).size === ids.length, `task ids repeat: ${ids.join(", ")}`);
      return `${ids.length} task(s): ${ids.join(", ")}`;
    });
    await check("a tiny job streams progress and a valid result", async () => {
      const c = await ensure();
      const progress: JobProgress[] = [];
      const j = job();
      const o = await withTimeout(c.train(j, { onProgress: (p) => progress.push(p) }), jobTimeoutMs, "tiny job");
      expect(o.kind === "result", `expected a result, got ${outcomeText(o)}`);
      if (o.kind !== "result") return "";
      const r = o.result;
      expect(progress.length > 0, "no progress line before the result");
      expect(
        progress.every((p, i) => i === 0 || p.steps >= progress[i - 1]!.steps),
        `progress steps go backwards: ${progress.map((p) => p.steps).join(", ")}`,
      );
      const seeds = r.final.perSeed.map((s) => s.seed);
      expect(seeds.length >= 3, `final F on ${seeds.length} evaluation seed(s); need ≥ 3`);
      expect(!seeds.includes(SEED), `final F was evaluated on the training seed ${SEED}`);
      expect(
        JSON.stringify([...seeds].sort()) === JSON.stringify([...EVAL_SEEDS].sort()),
        `final F was evaluated on seeds [${seeds.join(", ")}], not the requested [${EVAL_SEEDS.join(", ")}]`,
      );
      const mean = r.final.perSeed.reduce((a, s) => a + s.fitness, 0) / seeds.length;
      expect(Math.abs(mean - r.final.fitness) <= 1e-6 * Math.max(1, Math.abs(mean)), `final.fitness ${r.final.fitness} is not the mean of perSeed (${mean})`);
      const rel = relative(resolve(j.jobDir), resolve(r.policy));
      expect(!rel.startsWith("..") && rel !== "" && !rel.startsWith("/"), `policy ${r.policy} is not inside the job's directory ${j.jobDir}`);
      expect(existsSync(r.policy), `policy file ${r.policy} does not exist`);
      expect(r.steps > 0, "result.steps is 0");
      return `${progress.length} progress line(s), ${r.steps} steps, F = ${r.final.fitness.toFixed(2)} (best checkpoint ${r.bestCheckpoint.fitness.toFixed(2)}), components: ${Object.keys(r.components).join(", ") || "none"}`;
    });
    await check("a broken reward is an error with the fault", async () => {
      const c = await ensure();
      const o = await withTimeout(c.train(job({ reward: BROKEN_REWARD })), jobTimeoutMs, "broken reward job");
      expect(o.kind === "error" && o.error.kind === "reward_code", `expected error reward_code, got ${outcomeText(o)}`);
      if (o.kind !== "error") return "";
      expect(o.error.fault, "the error carries no fault");
      expect(o.error.message.trim(), "the error has no message");
      return `fault ${o.error.fault!.kind}${o.error.fault!.line ? ` at line ${o.error.fault!.line}` : " (no line)"}: ${o.error.fault!.message.slice(0, 80)}`;
    });
    await check("an unknown task is an error", async () => {
      const c = await ensure();
      const o = await withTimeout(c.train(job({ task: "no_such_task_hexa_check" })), 30_000, "unknown task job");
      expect(o.kind === "error" && o.error.kind === "unknown_task", `expected error unknown_task, got ${outcomeText(o)}`);
      return o.kind === "error" ? o.error.message.slice(0, 100) : "";
    });
    await check("evaluation seeds that include the training seed are refused", async () => {
      const c = await ensure();
      const o = await withTimeout(c.train(job({ evalSeeds: [SEED, 1001, 1002] })), 30_000, "overlapping seeds job");
      expect(o.kind === "error" && o.error.kind === "bad_request", `expected error bad_request, got ${outcomeText(o)}`);
      return o.kind === "error" ? o.error.message.slice(0, 100) : "";
    });
    await check("cancel is honoured", async () => {
      const c = await ensure();
      const ac = new AbortController();
      let firstProgress = 0;
      const t0 = Date.now();
      const timer = setTimeout(() => ac.abort(), 15_000);
      const p = c.train(job({ steps: 1_000_000_000 }), {
        signal: ac.signal,
        onProgress: () => {
          if (!firstProgress) (firstProgress = Date.now()), ac.abort();
        },
      });
      const o = await withTimeout(p, 60_000, "cancelled job");
      clearTimeout(timer);
      const answered = Date.now() - (firstProgress || t0);
      expect(!c.failure, `the trainer was killed: it did not answer the cancel in time (${c.failure?.message})`);
      expect(o.kind === "error" && o.error.kind === "cancelled", `expected error cancelled, got ${outcomeText(o)}`);
      return `answered ${answered} ms after the cancel`;
    });
    await check("shutdown exits", async () => {
      const c = await ensure();
      const t0 = Date.now();
      await c.close();
      const e = await c.exit;
      expect(!e.killed, "the trainer did not exit after shutdown and was killed");
      expect(e.code === 0, `exit code ${e.code}${e.signal ? `, signal ${e.signal}` : ""}; a trainer exits 0 on shutdown`);
      return `exited 0 in ${Date.now() - t0} ms`;
    });
  } finally {
    const c = client as TrainerClient | null;
    if (c) await c.close();
    rmSync(root, { recursive: true, force: true });
  }
  return checks;
};

export const formatConformance = (command: readonly string[] | undefined, checks: readonly ConformanceCheck[]): string => {
  const name = command ? describeCommand(command) : "the built-in trainer";
  const width = Math.max(...checks.map((c) => c.name.length), 5);
  // A detail's further lines (the trainer's stderr, kept by the client) go under its row, each block once.
  const shown = new Set<string>();
  const rows = checks.flatMap((c) => {
    const [first, ...more] = c.detail.split("\n");
    const row = `${c.ok ? "pass" : "FAIL"}  ${c.name.padEnd(width)}  ${String(c.ms).padStart(6)} ms  ${first}`;
    const block = more.join("\n");
    if (!block.trim()) return [row];
    if (shown.has(block)) return [`${row} (as above)`];
    shown.add(block);
    return [row, ...more.map((l) => `      ${l}`)];
  });
  const failed = checks.filter((c) => !c.ok).length;
  return [
    `trainer protocol ${TRAINER_PROTOCOL_VERSION} conformance: ${name}`,
    "",
    `      ${"check".padEnd(width)}  ${"time".padStart(9)}  detail`,
    ...rows,
    "",
    failed ? `${failed} of ${checks.length} checks failed` : `all ${checks.length} checks passed`,
  ].join("\n");
};
