/**
 * The quickstart (configs/quickstart.yaml) on one physics worker and on two, in interleaved pairs: wall time,
 * the process's CPU time (every thread: main, physics workers, V8's compiler and GC threads), and whether the two
 * runs agree on everything but clock readings. Goal: two workers ≥ 1.8× faster than one, identical runs.
 *
 * It also prints what the machine allows. A run that keeps CPU seconds of work busy cannot end in less than
 * CPU / cores, so two workers are at most cores × wall₁ / CPU₂ times faster than one; and even were they to cost no
 * more CPU than one worker (each worker's isolate compiles the same code again, so they cost more), at most
 * cores × wall₁ / CPU₁: the one-worker run's compiler and GC threads already use part of a second core. For
 * reference, two one-worker runs started together (twice the whole work, no dependency between them) show what
 * the machine's two cores give at once.
 * Run: npm run build && npm run bench:quickstart-workers [-- --pairs 3]
 */
import { execa } from "execa";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import { join } from "node:path";
import { intFlag, parseFlags } from "./flags.ts";
import { median, printTable } from "./harness.ts";
import { HEXA_BIN, requireBuild, runDirOf } from "./hexa-cli.ts";
import { recordPage, ROOT } from "./page.ts";
import { runRecordsWithoutClocks } from "../test/support/run-records.ts";

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

/** Digest of a run's records without their clock readings, and of its printed table. */
const runDigest = (runDir: string, stdout: string): string => {
  const table = stdout.split("\n").filter((l) => /^\S+\s+\d+\/\d+ /.test(l));
  return createHash("sha256")
    .update(JSON.stringify({ ...runRecordsWithoutClocks(runDir), table }))
    .digest("hex")
    .slice(0, 16);
};

const runQuickstart = async (workers: number): Promise<Measured> => {
  const dir = mkdtempSync(join(os.tmpdir(), "hexa-bench-qs-"));
  try {
    const cpuOut = join(dir, "cpu");
    const t0 = performance.now();
    const r = await execa(process.execPath, ["--import", CPU_AT_EXIT, HEXA_BIN, "run", CONFIG, "--runs-dir", join(dir, "runs")], {
      cwd: ROOT,
      env: { HEXA_PHYSICS_WORKERS: String(workers), HEXA_BENCH_CPU_OUT: cpuOut },
      stdin: "ignore",
      stripFinalNewline: false,
      reject: false,
    });
    const wallS = (performance.now() - t0) / 1000;
    if (r.exitCode !== 0)
      throw new Error(`hexa run ${CONFIG} on ${workers} worker(s): exit ${r.exitCode ?? r.signal ?? r.shortMessage}\n${r.stderr.slice(-2000)}`);
    const cpuS = Number(readFileSync(cpuOut, "utf8")) / 1e6;
    return { workers, wallS, cpuS, digest: runDigest(runDirOf(r.stdout), r.stdout) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};

interface Pair {
  one: Measured;
  two: Measured;
  /** Two one-worker runs started together: the slower one's wall time, and both runs. */
  bothAtOnceS: number;
  both: Measured[];
}

/** One worker, two workers, and two one-worker runs at once, in an order that rotates with `p`. */
const measurePair = async (p: number): Promise<Pair> => {
  const steps = [
    async (m: Partial<Pair>) => void (m.one = await runQuickstart(1)),
    async (m: Partial<Pair>) => void (m.two = await runQuickstart(2)),
    async (m: Partial<Pair>) => {
      m.both = await Promise.all([runQuickstart(1), runQuickstart(1)]);
      m.bothAtOnceS = Math.max(...m.both.map((r) => r.wallS));
    },
  ];
  const m: Partial<Pair> = {};
  for (let k = 0; k < steps.length; k++) await steps[(k + p) % steps.length]!(m);
  return m as Pair;
};

const s1 = (v: number) => v.toFixed(1);
const x2 = (v: number) => `${v.toFixed(2)}×`;

// Interleaved, rotating which goes first, so a neighbour's load or the disk cache favours none.
await runQuickstart(1); // warms the disk cache
const pairs: Pair[] = [];
for (let p = 0; p < PAIRS; p++) {
  const m = await measurePair(p);
  pairs.push(m);
  process.stderr.write(
    `pair ${p + 1}/${PAIRS}: 1 worker ${s1(m.one.wallS)} s, 2 workers ${s1(m.two.wallS)} s, two 1-worker runs at once ${s1(m.bothAtOnceS)} s\n`,
  );
}

console.log(`## ${CONFIG}: 1 physics worker and 2, ${PAIRS} interleaved pairs, ${CORES} cores\n`);
printTable(
  [
    "pair",
    "1 worker: wall s",
    "CPU s",
    "cores busy",
    "2 workers: wall s",
    "CPU s",
    "speed-up",
    "at most (cores × wall₁ / CPU₂)",
    "two 1-worker runs at once: wall s",
    "their 2 × wall₁ / wall",
    "same run",
  ],
  pairs.map(({ one, two, bothAtOnceS }, k) => [
    String(k + 1),
    s1(one.wallS),
    s1(one.cpuS),
    (one.cpuS / one.wallS).toFixed(2),
    s1(two.wallS),
    s1(two.cpuS),
    x2(one.wallS / two.wallS),
    x2((CORES * one.wallS) / two.cpuS),
    s1(bothAtOnceS),
    x2((2 * one.wallS) / bothAtOnceS),
    one.digest === two.digest ? "yes" : `NO (${one.digest} ≠ ${two.digest})`,
  ]),
);
const med = (f: (p: Pair) => number) => median(pairs.map(f));
const speedups = pairs.map(({ one, two }) => one.wallS / two.wallS);
const digests = new Set(pairs.flatMap((p) => [p.one, p.two, ...p.both].map((r) => r.digest)));
const same = digests.size === 1;
console.log(
  [
    "",
    `speed-up, 2 workers over 1: median ${x2(median(speedups))} (range ${x2(Math.min(...speedups))} to ${x2(Math.max(...speedups))}); goal ≥ 1.80×`,
    `at most, from the two-worker runs' CPU (cores × wall₁ / CPU₂): median ${x2(med((p) => (CORES * p.one.wallS) / p.two.cpuS))}`,
    `at most were two workers to cost no more CPU than one (cores × wall₁ / CPU₁): median ${x2(med((p) => (CORES * p.one.wallS) / p.one.cpuS))}`,
    `two workers use ${s1(med((p) => p.two.cpuS - p.one.cpuS))} CPU s more than one (median)`,
    `for reference, two 1-worker runs at once: 2 × wall₁ / their wall, median ${x2(med((p) => (2 * p.one.wallS) / p.bothAtOnceS))}`,
    `runs identical apart from clock readings (episodes, bank events, banks, metrics, table), every run, the concurrent ones too: ${same ? "yes" : "NO"}`,
  ].join("\n"),
);
if (!same) process.exitCode = 1;
