/**
 * PPO learning parity on Hopper-v5: hexa's PPO (bench/ppo-hopper.ts) and the reference, CleanRL's
 * ppo_continuous_action loop on native MuJoCo and torch (../shared/reference/cleanrl-hopper/), each on seeds
 * first … first + seeds − 1 for the same env steps, one thread each, `--jobs` trainings at a time (hexa's seed s
 * beside the reference's seed s). Prints per seed and as mean with its 95 % interval (Student t over seeds) CleanRL's
 * charts/episodic_return at the end: the mean return of the training episodes that ended in the last window (10
 * rollouts, 20,480 steps, or fewer at the end; both sides log the same windows), per episode; the verdict (hexa's
 * mean inside the reference's interval or not); and env steps/s per side.
 *
 *   node --import tsx bench/ppo-parity.ts [--seeds 5] [--steps 300000] [--first 1] [--jobs 2] [--reference <dir>] [--reference-logs <dir>] [--write-page]
 *
 * `--reference-logs DIR` reads the reference's output recorded earlier (DIR/seed-S.log from `run.sh ppo --steps
 * STEPS --seed S`) instead of training it again: the same returns, the env steps/s of the time it ran.
 *
 * Wall-clock figures depend on whatever else the machine runs.
 */
import { join } from "node:path";
import { recordPage, ROOT } from "./page.ts";
import { meanInterval95, within, type MeanInterval } from "./ppo-parity-stats.ts";
import { type ParityRun, parityRun, type Side } from "./ppo-parity-run.ts";

recordPage("ppo-parity");

const arg = (name: string, fallback: string): string => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? (process.argv[i + 1] ?? fallback) : fallback;
};
const positiveInt = (name: string, fallback: number): number => {
  const v = Number(arg(name, String(fallback)));
  if (!Number.isInteger(v) || v < 1) throw new Error(`bench/ppo-parity.ts: --${name} must be a whole number ≥ 1 (got ${arg(name, "")})`);
  return v;
};
const SEEDS = positiveInt("seeds", 5);
const STEPS = positiveInt("steps", 300_000);
const FIRST = positiveInt("first", 1);
const JOBS = positiveInt("jobs", 2);
const REFERENCE = arg("reference", join(ROOT, "..", "shared", "reference", "cleanrl-hopper"));
const REFERENCE_LOGS = process.argv.includes("--reference-logs") ? arg("reference-logs", "") : undefined;

const seeds = Array.from({ length: SEEDS }, (_, i) => FIRST + i);
const jobs: Array<{ side: Side; seed: number }> = seeds.flatMap((seed) => [
  { side: "hexa" as const, seed },
  { side: "reference" as const, seed },
]);

console.log(`ppo parity: Hopper-v5, ${STEPS} env steps, seeds ${seeds.join(", ")}, ${JOBS} trainings at a time, one thread each\n`);
if (REFERENCE_LOGS)
  console.log(
    `reference: read from ${REFERENCE_LOGS}/seed-S.log, recorded earlier; its env steps/s are those of that time, not comparable with hexa's below\n`,
  );
const t0 = performance.now();
const results: ParityRun[] = [];
let next = 0;
const worker = async (): Promise<void> => {
  while (next < jobs.length) {
    const job = jobs[next++]!;
    const r = await parityRun(job.side, job.seed, STEPS, REFERENCE, REFERENCE_LOGS);
    process.stderr.write(`${job.side} seed ${job.seed}: ${r.lastReturn.toFixed(0)} over ${r.episodes} episodes, ${r.sps.toFixed(0)} steps/s\n`);
    results.push(r);
  }
};
await Promise.all(Array.from({ length: Math.min(JOBS, jobs.length) }, worker));

const of = (side: Side, seed: number): ParityRun => results.find((r) => r.side === side && r.seed === seed)!;
const fmt = (v: number) => (Number.isFinite(v) ? v.toLocaleString("en-US", { maximumFractionDigits: 0 }) : "–");
const span = (i: MeanInterval) => `${fmt(i.mean)} [${fmt(i.low)}, ${fmt(i.high)}]`;
const returns = (side: Side) => seeds.map((s) => of(side, s).lastReturn).filter(Number.isFinite);
const hexa = meanInterval95(returns("hexa"));
const ref = meanInterval95(returns("reference"));
const spsOf = (side: Side) => meanInterval95(seeds.map((s) => of(side, s).sps));

console.log("| seed | hexa return | hexa episodes | hexa env steps/s | reference return | reference episodes | reference env steps/s |");
console.log("|---:|---:|---:|---:|---:|---:|---:|");
for (const s of seeds) {
  const h = of("hexa", s),
    r = of("reference", s);
  console.log(`| ${s} | ${fmt(h.lastReturn)} | ${h.episodes} | ${fmt(h.sps)} | ${fmt(r.lastReturn)} | ${r.episodes} | ${fmt(r.sps)} |`);
}
console.log(`| mean [95 % interval] | ${span(hexa)} | | ${span(spsOf("hexa"))} | ${span(ref)} | | ${span(spsOf("reference"))} |`);

const w = of("hexa", seeds[0]!).window;
console.log(
  `\nreturn: CleanRL's charts/episodic_return, the mean return of the training episodes that ended in env steps ${w.fromStep + 1}–${w.toStep}, per episode (stochastic policy, reward before normalisation)`,
);
console.log(
  `verdict: hexa's mean ${fmt(hexa.mean)} is ${within(hexa.mean, ref) ? "within" : "outside"} the reference's 95 % interval [${fmt(ref.low)}, ${fmt(ref.high)}] ` +
    `(n = ${hexa.n} and ${ref.n} seeds)`,
);
console.log(
  REFERENCE_LOGS
    ? `speed: not compared (the reference's env steps/s were recorded at another time, under another load); hexa ${fmt(spsOf("hexa").mean)} env steps/s, ${JOBS} trainings at a time`
    : `speed: hexa ${(spsOf("hexa").mean / spsOf("reference").mean).toFixed(2)}× the reference's env steps/s (means; ${JOBS} trainings ran at a time)`,
);
console.log(`wall time ${((performance.now() - t0) / 1000).toFixed(0)} s`);
