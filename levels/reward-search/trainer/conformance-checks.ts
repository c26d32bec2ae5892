import { existsSync } from "node:fs";
import { relative, resolve } from "node:path";
import type { JobOutcome, JobProgress } from "./client.ts";
import { type CheckSession, EVAL_SEEDS, expect, SEED, withTimeout } from "./conformance-session.ts";
import { TRAINER_PROTOCOL_VERSION } from "./protocol.ts";

/**
 * The checks of `hexa trainer check` (conformance.ts), in the order they run: each returns its detail line or
 * throws what failed.
 */

/** A syntax error on line 3. */
const BROKEN_REWARD = `function reward(obs, action, nextObs, info) {
  const alive = 1;
  return { total: alive, components: { alive: } };
}`;

const outcomeText = (o: JobOutcome) =>
  o.kind === "result" ? `a result (F = ${o.result.final.fitness})` : `error ${o.error.kind}: ${o.error.message.slice(0, 200)}`;

const startsAndSaysHello = async (s: CheckSession): Promise<string> => {
  const c = await s.ensure();
  return `${c.hello.trainer.name} ${c.hello.trainer.version} in ${c.startMs} ms`;
};

const speaksProtocol = async (s: CheckSession): Promise<string> => {
  await s.ensure();
  expect(s.hello.protocol === TRAINER_PROTOCOL_VERSION, `hello says protocol ${s.hello.protocol}`);
  return `protocol ${s.hello.protocol}, concurrency ${s.hello.concurrency ?? 1}`;
};

const listsTasks = async (s: CheckSession): Promise<string> => {
  await s.ensure();
  const { tasks } = s.hello;
  expect(tasks.length > 0, "hello lists no tasks");
  const bare = tasks.filter((t) => !t.description.trim()).map((t) => t.id);
  expect(bare.length === 0, `tasks without a description: ${bare.join(", ")}`);
  const ids = tasks.map((t) => t.id);
  expect(new Set(ids).size === ids.length, `task ids repeat: ${ids.join(", ")}`);
  return `${ids.length} task(s): ${ids.join(", ")}`;
};

/** The result of a job holds together: F on the requested eval seeds (never the training seed), a policy in its directory. */
const tinyJob = async (s: CheckSession): Promise<string> => {
  const c = await s.ensure();
  const progress: JobProgress[] = [];
  const j = s.job();
  const o = await withTimeout(c.train(j, { onProgress: (p) => progress.push(p) }), s.jobTimeoutMs, "tiny job");
  expect(o.kind === "result", `expected a result, got ${outcomeText(o)}`);
  if (o.kind !== "result") return "";
  const r = o.result;
  expect(progress.length > 0, "no progress line before the result");
  expect(
    progress.every((p, i) => i === 0 || p.steps >= progress[i - 1]!.steps),
    `progress steps go backwards: ${progress.map((p) => p.steps).join(", ")}`,
  );
  const seeds = r.final.perSeed.map((e) => e.seed);
  expect(seeds.length >= 3, `final F on ${seeds.length} evaluation seed(s); need ≥ 3`);
  expect(!seeds.includes(SEED), `final F was evaluated on the training seed ${SEED}`);
  expect(
    JSON.stringify([...seeds].sort()) === JSON.stringify([...EVAL_SEEDS].sort()),
    `final F was evaluated on seeds [${seeds.join(", ")}], not the requested [${EVAL_SEEDS.join(", ")}]`,
  );
  const mean = r.final.perSeed.reduce((a, e) => a + e.fitness, 0) / seeds.length;
  expect(Math.abs(mean - r.final.fitness) <= 1e-6 * Math.max(1, Math.abs(mean)), `final.fitness ${r.final.fitness} is not the mean of perSeed (${mean})`);
  const rel = relative(resolve(j.jobDir), resolve(r.policy));
  expect(!rel.startsWith("..") && rel !== "" && !rel.startsWith("/"), `policy ${r.policy} is not inside the job's directory ${j.jobDir}`);
  expect(existsSync(r.policy), `policy file ${r.policy} does not exist`);
  expect(r.steps > 0, "result.steps is 0");
  return `${progress.length} progress line(s), ${r.steps} steps, F = ${r.final.fitness.toFixed(2)} (best checkpoint ${r.bestCheckpoint.fitness.toFixed(2)}), components: ${Object.keys(r.components).join(", ") || "none"}`;
};

const brokenReward = async (s: CheckSession): Promise<string> => {
  const c = await s.ensure();
  const o = await withTimeout(c.train(s.job({ reward: BROKEN_REWARD })), s.jobTimeoutMs, "broken reward job");
  expect(o.kind === "error" && o.error.kind === "reward_code", `expected error reward_code, got ${outcomeText(o)}`);
  if (o.kind !== "error") return "";
  expect(o.error.fault, "the error carries no fault");
  expect(o.error.message.trim(), "the error has no message");
  return `fault ${o.error.fault!.kind}${o.error.fault!.line ? ` at line ${o.error.fault!.line}` : " (no line)"}: ${o.error.fault!.message.slice(0, 80)}`;
};

const unknownTask = async (s: CheckSession): Promise<string> => {
  const c = await s.ensure();
  const o = await withTimeout(c.train(s.job({ task: "no_such_task_hexa_check" })), 30_000, "unknown task job");
  expect(o.kind === "error" && o.error.kind === "unknown_task", `expected error unknown_task, got ${outcomeText(o)}`);
  return o.kind === "error" ? o.error.message.slice(0, 100) : "";
};

const overlappingSeeds = async (s: CheckSession): Promise<string> => {
  const c = await s.ensure();
  const o = await withTimeout(c.train(s.job({ evalSeeds: [SEED, 1001, 1002] })), 30_000, "overlapping seeds job");
  expect(o.kind === "error" && o.error.kind === "bad_request", `expected error bad_request, got ${outcomeText(o)}`);
  return o.kind === "error" ? o.error.message.slice(0, 100) : "";
};

/** A job too long to finish, cancelled at its first progress line (or after 15 s): the trainer must answer it. */
const cancelHonoured = async (s: CheckSession): Promise<string> => {
  const c = await s.ensure();
  const ac = new AbortController();
  let firstProgress = 0;
  const t0 = Date.now();
  const timer = setTimeout(() => ac.abort(), 15_000);
  const p = c.train(s.job({ steps: 1_000_000_000 }), {
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
};

const shutdownExits = async (s: CheckSession): Promise<string> => {
  const c = await s.ensure();
  const t0 = Date.now();
  await c.close();
  const e = await c.exit;
  expect(!e.killed, "the trainer did not exit after shutdown and was killed");
  expect(e.code === 0, `exit code ${e.code}${e.signal ? `, signal ${e.signal}` : ""}; a trainer exits 0 on shutdown`);
  return `exited 0 in ${Date.now() - t0} ms`;
};

export const CONFORMANCE_CHECKS: ReadonlyArray<{ name: string; run: (s: CheckSession) => Promise<string> }> = [
  { name: "starts and says hello", run: startsAndSaysHello },
  { name: `speaks protocol ${TRAINER_PROTOCOL_VERSION}`, run: speaksProtocol },
  { name: "hello lists its tasks with descriptions", run: listsTasks },
  { name: "a tiny job streams progress and a valid result", run: tinyJob },
  { name: "a broken reward is an error with the fault", run: brokenReward },
  { name: "an unknown task is an error", run: unknownTask },
  { name: "evaluation seeds that include the training seed are refused", run: overlappingSeeds },
  { name: "cancel is honoured", run: cancelHonoured },
  { name: "shutdown exits", run: shutdownExits },
];
