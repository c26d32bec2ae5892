/**
 * The quickstart (configs/quickstart.yaml) on one physics worker and on two, in interleaved pairs: wall time,
 * the process's CPU time (every thread: main, physics workers, V8's compiler and GC threads), and whether the two
 * runs agree on everything but clock readings. Goal: two workers ≥ 1.8× faster than one, identical runs.
 *
 * It also prints what the machine allows: a run that keeps CPU seconds of work busy cannot finish in less than
 * CPU / cores, so two workers cannot be more than cores × wall₁ / CPU₂ times faster than one (CPU₂: the two-worker
 * run's CPU time, which includes each worker's own JIT warm-up), and not more than cores × wall₁ / CPU₁ even were two
 * workers to cost no more CPU than one: the one-worker run's compiler and GC threads already use part of a second core.
 * Run: npm run build && npm run bench:quickstart-workers [-- --pairs 3]
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { intFlag, parseFlags } from "./flags.ts";
import { median, printTable } from "./harness.ts";
import { HEXA_BIN, requireBuild, runDirOf } from "./hexa-cli.ts";
import { recordPage, ROOT } from "./page.ts";

recordPage("quickstart-workers");

const SCRIPT = "bench:quickstart-workers";
const flags = parseFlags(SCRIPT, { pairs: "3" });
const PAIRS = intFlag(SCRIPT, "pairs", flags.pairs);
requireBuild(SCRIPT);
const CONFIG = "configs/quickstart.yaml";
const CORES = os.availableParallelism();

/** Writes the process's CPU time (all threads, µs) to $HEXA_BENCH_CPU_OUT when it exits. */
const CPU_AT_EXIT =
  "data:text/javascript,import{writeFileSync}from'node:fs';process.on('exit',()=>{const u=process.cpuUsage();writeFileSync(process.env.HEXA_BENCH_CPU_OUT,String(u.user+u.system))})";

interface Measured {
  workers: number;
  wallS: number;
  cpuS: number;
  /** Digest of the run's files without their clock readings, and of its printed table. */
  digest: string;
}

/** A record with its clock readings removed (tool and wall times, timestamps): what must not depend on the pool. */
const timeless = (v: unknown): unknown => {
  if (Array.isArray(v)) return v.map(timeless);
  if (v === null || typeof v !== "object") return v;
  return Object.fromEntries(
    Object.entries(v)
      .filter(([k]) => !/(^ms$|Ms$|^at$|At$|^time)/.test(k))
      .map(([k, x]) => [k, timeless(x)]),
  );
};

const runDigest = (runDir: string, stdout: string): string => {
  const jsonl = (f: string) =>
    readFileSync(join(runDir, f), "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => timeless(JSON.parse(l)));
  const episodes = (jsonl("episodes.jsonl") as { id: string }[]).sort((a, b) => a.id.localeCompare(b.id));
  const { run: _id, ...metrics } = JSON.parse(readFileSync(join(runDir, "metrics.json"), "utf8")) as Record<string, unknown>;
  const banks = readdirSync(join(runDir, "banks"))
    .sort()
    .map((f) => timeless(JSON.parse(readFileSync(join(runDir, "banks", f), "utf8"))));
  const table = stdout.split("\n").filter((l) => /^\S+\s+\d+\/\d+ /.test(l));
  const all = JSON.stringify({ episodes, events: jsonl("bank-events.jsonl"), metrics: timeless(metrics), banks, table });
  return createHash("sha256").update(all).digest("hex").slice(0, 16);
};

const runQuickstart = (workers: number): Measured => {
  const dir = mkdtempSync(join(os.tmpdir(), "hexa-bench-qs-"));
  try {
    const cpuOut = join(dir, "cpu");
    const t0 = performance.now();
    const r = spawnSync(process.execPath, ["--import", CPU_AT_EXIT, HEXA_BIN, "run", CONFIG, "--runs-dir", join(dir, "runs")], {
      cwd: ROOT,
      encoding: "utf8",
      env: { ...process.env, HEXA_PHYSICS_WORKERS: String(workers), HEXA_BENCH_CPU_OUT: cpuOut },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const wallS = (performance.now() - t0) / 1000;
    if (r.status !== 0) throw new Error(`hexa run ${CONFIG} on ${workers} worker(s): exit ${r.status ?? r.signal}\n${r.stderr.slice(-2000)}`);
    const cpuS = Number(readFileSync(cpuOut, "utf8")) / 1e6;
    return { workers, wallS, cpuS, digest: runDigest(runDirOf(r.stdout), r.stdout) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};

const s1 = (v: number) => v.toFixed(1);
const x2 = (v: number) => `${v.toFixed(2)}×`;

// Interleaved, alternating which goes first, so a neighbour's load or the disk cache favours neither.
runQuickstart(1); // warms the disk cache
const pairs: [Measured, Measured][] = [];
for (let p = 0; p < PAIRS; p++) {
  const first = p % 2 === 0 ? 1 : 2;
  const runs = [runQuickstart(first), runQuickstart(3 - first)];
  const [a, b] = first === 1 ? runs : runs.reverse();
  pairs.push([a!, b!]);
  process.stderr.write(`pair ${p + 1}/${PAIRS}: 1 worker ${s1(a!.wallS)} s, 2 workers ${s1(b!.wallS)} s\n`);
}

console.log(`## ${CONFIG}: 1 physics worker and 2, ${PAIRS} interleaved pairs, ${CORES} cores\n`);
printTable(
  ["pair", "1 worker: wall s", "CPU s", "cores busy", "2 workers: wall s", "CPU s", "cores busy", "speed-up", "at most (cores × wall₁ / CPU₂)", "same run"],
  pairs.map(([a, b], k) => [
    String(k + 1),
    s1(a.wallS),
    s1(a.cpuS),
    (a.cpuS / a.wallS).toFixed(2),
    s1(b.wallS),
    s1(b.cpuS),
    (b.cpuS / b.wallS).toFixed(2),
    x2(a.wallS / b.wallS),
    x2((CORES * a.wallS) / b.cpuS),
    a.digest === b.digest ? "yes" : `NO (${a.digest} ≠ ${b.digest})`,
  ]),
);
const speedups = pairs.map(([a, b]) => a.wallS / b.wallS);
const bounds = pairs.map(([a, b]) => (CORES * a.wallS) / b.cpuS);
const idealBounds = pairs.map(([a]) => (CORES * a.wallS) / a.cpuS);
const extraCpu = pairs.map(([a, b]) => b.cpuS - a.cpuS);
const same = pairs.every(([a, b]) => a.digest === b.digest && a.digest === pairs[0]![0].digest);
console.log(
  [
    "",
    `speed-up, 2 workers over 1: median ${x2(median(speedups))} (range ${x2(Math.min(...speedups))} to ${x2(Math.max(...speedups))}); goal ≥ 1.80×`,
    `at most on ${CORES} cores: median ${x2(median(bounds))}; two workers use ${s1(median(extraCpu))} CPU s more than one (median)`,
    `at most on ${CORES} cores were two workers to use no more CPU than one (cores × wall₁ / CPU₁): median ${x2(median(idealBounds))}`,
    `runs identical apart from clock readings (episodes, bank events, banks, metrics, table): ${same ? "yes, every run" : "NO"}`,
  ].join("\n"),
);
if (!same) process.exitCode = 1;
