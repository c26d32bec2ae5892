import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { ConfigError, RunStopped } from "../errors.ts";
import { formatUsd, type Budget } from "../llm/budget.ts";
import type { Cell, GridAxis } from "../loop/compare/grid.ts";
import { heldOutArg } from "../loop/compare/heldout.ts";
import { mapLimit } from "../loop/pool.ts";
import { compareResults, type CellInput, type EpisodeOutcome } from "../report/compare/results.ts";
import { curveSvg } from "../report/compare/plot.ts";
import { renderCsv, renderMarkdown, type CompareHeader } from "../report/compare/render.ts";
import { renderText } from "../report/compare/print.ts";
import { chartToPng } from "../report/png.ts";
import { writeReport } from "./inspect-report.ts";
import { appendJsonl, readJsonl, writeAtomic, writeJsonAtomic } from "../store/jsonl.ts";
import type { RunDir } from "../store/run-dir.ts";
import { takePidLock } from "../store/pid-lock.ts";
import type { EpisodeRecord } from "../store/run-records.ts";
import { readFinalScores } from "../store/final-scores.ts";
import type { LevelFamily } from "../family/family.ts";
import type { FamilyRegistry } from "./families.ts";
import { child, finished, findRun, heldOutOf } from "./compare-runs.ts";
import { checkBackend } from "./backend.ts";
import { doctorSkipped, preflight, rolesOf, servedChanges } from "./preflight.ts";
import { budgetFrom } from "./budget.ts";
import { anyHeldOut, checkSpec, heldOutText, planGrid, type GridArgs, type GridPlan, type HeldOut, type Job } from "./compare-grid.ts";
import { checkGridForecast, evalSpent, GridCap, jobForecasts, runSpent } from "./compare-budget.ts";
import { gridProgress } from "./compare-progress.ts";
import { progressView } from "./progress.ts";

/** Takes DIR for this process; a lock left by a dead process is taken over. */
const lockDir = (dir: string): (() => void) => {
  const path = join(dir, "compare.lock");
  return takePidLock(path, (holder) => `${dir}: in use by hexa compare (${holder}); wait for it or stop it (delete ${path} if that process is not hexa)`);
};

const outcome = (e: EpisodeRecord): EpisodeOutcome => ({
  level: e.level,
  round: e.round,
  seed: e.seed,
  success: e.trajectory.success,
  turns: e.trajectory.turns,
});

/** Every cell's LLM roles, before any run spends: a grid over llm.actor.model may name a model one endpoint lacks. */
const preflightCells = async (plan: GridPlan, runsDir: string, configPath: string, note: (line: string) => void): Promise<void> => {
  // A cell's runs made earlier are told apart when their endpoint now answers as another model or fingerprint.
  for (const c of plan.runnable) {
    const cellJobs = plan.jobs.filter((j) => j.cell === c);
    const cfg = cellJobs[0]!.cfg;
    const served = await preflight(cfg.llm, rolesOf(cfg, plan.family.search?.searchFor(cfg) !== undefined), {
      env: process.env,
      cacheDir: runsDir,
      where: `${configPath} (cell ${c.id})`,
    });
    const made = cellJobs.flatMap((j) => findRun(runsDir, j.cfg, plan.family) ?? []);
    if (served) made.forEach((dir) => servedChanges(dir.path, served).forEach(note));
  }
};

/** What playing the grid's jobs shares. */
interface Grid {
  out: string;
  runsDir: string;
  logPath: string;
  plan: GridPlan;
  gridCap: GridCap;
  /** Flags passed on to each cell's hexa run. */
  passOn: string[];
  key: (job: Job) => string;
  needsEval: (job: Job, dir: RunDir | undefined) => boolean;
  note: (line: string) => void;
}

/** How the jobs went: how many finished, which failed, and why the grid stopped (its cap spent). */
interface GridTally {
  done: number;
  failures: string[];
  stop?: string;
}

/** One job: its run (or resume) and its held-out eval, each a child hexa under its share of the grid's cap. */
const playJob = async (g: Grid, job: Job, played: GridTally): Promise<boolean> => {
  const { out, runsDir, plan, gridCap } = g;
  const name = g.key(job);
  const cellFile = join(out, "cells", `${job.cell.id}-r${job.run}.yaml`);
  writeAtomic(cellFile, `# hexa compare ${job.cell.id} (${job.cell.label}), run ${job.run}\n${job.yaml}`);
  const logFile = join(out, "logs", `${job.cell.id}-r${job.run}.log`);
  // Each step runs under its share of the grid's cap; a child stopped by it (exit 3) stops the grid.
  const step = async (what: string, kind: "run" | "eval", args: string[], last: boolean): Promise<boolean> => {
    if (played.stop) return false;
    const now = findRun(runsDir, job.cfg, plan.family);
    const share = gridCap.flags(name, kind, kind === "run" ? runSpent(now) : evalSpent(now!, plan.heldOut));
    if (!share) {
      played.stop = `the grid's cap is spent before ${name}'s ${kind}`;
      return false;
    }
    const r = await child([...args, ...share], logFile);
    gridCap.ended(name, kind, last || r.code !== 0);
    appendJsonl(g.logPath, [{ cell: job.cell.id, run: job.run, step: what, ms: Math.round(r.ms), exit: r.code }]);
    if (r.code === 3) played.stop ??= `${name}'s ${kind} stopped at its share of the grid's cap (see ${logFile})`;
    else if (r.code !== 0) played.failures.push(`${name}: hexa ${what} exited ${r.code} (see ${logFile})`);
    return r.code === 0;
  };
  let dir = findRun(runsDir, job.cfg, plan.family);
  const search = plan.family.search?.searchFor(job.cfg) !== undefined;
  if (!dir || !finished(dir, job.cfg, plan.family)) {
    const args = dir ? ["run", "--resume", dir.path, ...g.passOn] : ["run", cellFile, "--runs-dir", runsDir, ...g.passOn];
    if (!(await step(dir ? "run --resume" : "run", "run", args, !anyHeldOut(plan.heldOut) || search))) return false;
    dir = findRun(runsDir, job.cfg, plan.family)!;
  }
  // A whole search has no bank to evaluate frozen: its final scores are its held-out figures. The grid made the run
  // from the user's own config, so its endpoints are the user's: --trust-run-config (docs/security.md).
  const evalArgs = ["eval", dir.path, "--seeds", heldOutArg(plan.heldOut), "--trust-run-config"];
  if (g.needsEval(job, findRun(runsDir, job.cfg, plan.family)) && !(await step("eval", "eval", evalArgs, true))) return false;
  return true;
};

/** The error of a grid its cap stopped: what finished, what it spent, and the command that continues it. */
const budgetStopped = (cap: Budget, played: GridTally, total: number, gridCap: GridCap): RunStopped => {
  const c = [
    cap.usd !== undefined ? `budget.usd ${formatUsd(cap.usd)}` : "",
    cap.tokens !== undefined ? `budget.tokens ${cap.tokens.toLocaleString("en")}` : "",
  ]
    .filter(Boolean)
    .join(" and ");
  const raise = [
    cap.usd !== undefined ? `--budget-usd ${(cap.usd * 2).toPrecision(2)}` : "",
    cap.tokens !== undefined ? `--budget-tokens ${cap.tokens * 2}` : "",
  ]
    .filter(Boolean)
    .join(" ");
  const failed = played.failures.length ? `; besides, ${played.failures.length} run(s) failed: ${played.failures.join("; ")}` : "";
  return new RunStopped(
    `compare stopped: budget — ${played.stop}; ${played.done} of ${total} run(s) finished and are kept, the others keep what they played; the grid has spent ${gridCap.spentText()} of ${c}${failed}. No results are written yet: rerun the same hexa compare command with a raised cap (e.g. ${raise}) to continue; no episode is played twice`,
  );
};

/** The flags compare reads (src/cli/compare.ts declares them, budget caps included); a caller other than the command (hexa bench) gives the required ones. */
interface CompareArgs extends GridArgs {
  parallel: number;
  backend?: string | undefined;
  doctor?: boolean | undefined;
  yes?: boolean | undefined;
  [flag: string]: unknown;
}

/** The grid's share of the cap among its jobs, after the forecast (refused above the cap without --yes). */
const gridBudget = (
  argv: CompareArgs,
  plan: GridPlan,
  runsDir: string,
  key: (job: Job) => string,
  needsEval: Grid["needsEval"],
  note: (line: string) => void,
) => {
  const { jobs, family, heldOut } = plan;
  const cap = budgetFrom(jobs[0]!.cfg.budget, argv);
  const capped = jobs.map((job) => {
    const dir = findRun(runsDir, job.cfg, family);
    return { key: key(job), cfg: job.cfg, dir, runLeft: !dir || !finished(dir, job.cfg, family), evalSeeds: needsEval(job, dir) ? heldOut : undefined };
  });
  const forecasts = jobForecasts(capped, family, runsDir);
  const gridCap = new GridCap(cap, capped, forecasts, (k) => findRun(runsDir, jobs.find((j) => key(j) === k)!.cfg, family));
  checkGridForecast(capped, forecasts, cap, gridCap.spent(), { yes: argv.yes === true, print: note });
  return { cap, gridCap };
};

/** `hexa compare` (src/cli/compare.ts): plays the grid's runs and evaluations in DIR (`out`), then writes its results. */
export const compare = async (families: FamilyRegistry, argv: CompareArgs, out: string): Promise<void> => {
  const configPath = argv.config;
  // Passed on to each cell's hexa run: the grid checked every cell's endpoints once, before the first run.
  const passOn = [...(argv.backend === undefined ? [] : ["--backend", argv.backend]), ...(doctorSkipped(argv, process.env) ? ["--no-doctor"] : [])];
  if (argv.backend !== undefined) checkBackend(argv.backend, "--backend");
  const note = (line: string) => process.stderr.write(`${line}\n`);
  // Everything that can be refused is checked before DIR or any run directory is made.
  const plan = await planGrid(families, argv, note);
  const { jobs, runnable, skipped, family, heldOut } = plan;
  const specPath = join(out, "compare.json");
  checkSpec(specPath, plan.spec);
  const runsDir = join(out, "runs");
  const key = (job: Job) => `${job.cell.id} run ${job.run}`;
  const needsEval = (job: Job, dir: RunDir | undefined) =>
    anyHeldOut(heldOut) && !family.search?.searchFor(job.cfg) && !(dir && heldOutOf(dir, job.cfg, heldOut));
  const { cap, gridCap } = gridBudget(argv, plan, runsDir, key, needsEval, note);
  if (!doctorSkipped(argv, process.env)) await preflightCells(plan, runsDir, configPath, note);
  mkdirSync(join(out, "cells"), { recursive: true });
  mkdirSync(join(out, "logs"), { recursive: true });
  if (!existsSync(specPath)) writeJsonAtomic(specPath, plan.spec);
  const release = lockDir(out);
  try {
    const logPath = join(out, "compare-log.jsonl");
    const view = progressView(process.stderr, () => performance.now());
    const progress = gridProgress(jobs, heldOut, family, (j) => findRun(runsDir, j.cfg, family)?.path, view);
    const grid: Grid = { out, runsDir, logPath, plan, gridCap, passOn, key, needsEval, note: view.line };
    const played: GridTally = { done: 0, failures: [] };
    const t0 = performance.now();
    view.line(
      `compare ${out}: ${runnable.length} cell(s) × ${argv.runs} run(s), ${progress.total} episodes in all, held-out seeds ${anyHeldOut(heldOut) ? heldOutText(heldOut) : "none"}${skipped.length ? `, ${skipped.length} cell(s) skipped` : ""}`,
    );
    progress.look();
    try {
      await mapLimit(jobs, argv.parallel, async (job) => {
        if (played.stop) return;
        progress.started(job);
        const ok = await playJob(grid, job, played).finally(() => progress.ended(job));
        if (!ok) return;
        view.line(`${key(job)} (${job.cell.label}) done: ${++played.done} of ${jobs.length} runs, ${((performance.now() - t0) / 1000).toFixed(1)} s`);
      });
    } finally {
      progress.stop();
    }
    if (played.stop) throw budgetStopped(cap, played, jobs.length, gridCap);
    const failures = played.failures;
    await writeResults(out, { configPath, axes: plan.axes, runs: argv.runs, heldOut, baseline: plan.baseline, skipped, jobs, runsDir, logPath, family });
    // The whole grid as one hexa inspect report: a line per cell with a band over its runs (docs/ARCHITECTURE.md §8).
    if (!failures.length) note(`report: ${writeReport(families, runsDir, join(out, "report.html"))} (open it in a web browser)`);
    if (failures.length) throw new ConfigError(`${failures.length} run(s) failed: ${failures.join("; ")}; fix that and rerun the same command to continue`);
  } finally {
    release();
  }
};

/** compare-log.jsonl: one line per child process, for the wall time of each run. */
const LogLine = z.looseObject({ cell: z.string(), run: z.number().int(), step: z.string(), ms: z.number(), exit: z.number().int() });

interface Done {
  configPath: string;
  axes: GridAxis[];
  runs: number;
  heldOut: HeldOut;
  baseline: Cell;
  skipped: CompareHeader["skipped"];
  jobs: Job[];
  runsDir: string;
  logPath: string;
  family: LevelFamily;
}

const writeResults = async (out: string, d: Done): Promise<void> => {
  const wall = new Map<string, number>();
  for (const l of readJsonl(d.logPath, LogLine, { repair: false })) {
    wall.set(`${l.cell}/${l.run}`, (wall.get(`${l.cell}/${l.run}`) ?? 0) + l.ms);
  }
  const byCell = new Map<string, CellInput>();
  for (const job of d.jobs) {
    const dir = findRun(d.runsDir, job.cfg, d.family);
    if (!dir || !finished(dir, job.cfg, d.family)) continue;
    const held = anyHeldOut(d.heldOut) ? heldOutOf(dir, job.cfg, d.heldOut) : undefined;
    type Usage = { usage: { total: { input: number; output: number; costUsd: number; unpricedCalls: number } } };
    // A search run made before searches wrote metrics.json has none (its calls were not metered then).
    const metrics: Usage = existsSync(dir.file("metrics"))
      ? (JSON.parse(readFileSync(dir.file("metrics"), "utf8")) as Usage)
      : { usage: { total: { input: 0, output: 0, costUsd: 0, unpricedCalls: 0 } } };
    const final = readFinalScores(dir.path);
    const evalUsage = (held ?? []).reduce(
      (s, e) => ({ tokens: s.tokens + e.trajectory.usage.input + e.trajectory.usage.output, cost: s.cost + e.trajectory.usage.costUsd }),
      { tokens: 0, cost: 0 },
    );
    const cell = byCell.get(job.cell.id) ?? { id: job.cell.id, label: job.cell.label, runs: [] };
    cell.runs.push({
      run: job.run,
      dir: dir.path,
      stream: dir
        .episodes({ repair: false })
        .filter((e) => e.phase === "stream")
        .map(outcome),
      ...(held ? { heldOut: held.map(outcome) } : {}),
      ...(final ? { final: final.levels } : {}),
      tokens: metrics.usage.total.input + metrics.usage.total.output + evalUsage.tokens,
      costUsd: metrics.usage.total.costUsd + evalUsage.cost,
      // Held-out calls carry no priced flag in their records; the run's own calls do.
      unpricedCalls: metrics.usage.total.unpricedCalls,
      wallMs: wall.get(`${job.cell.id}/${job.run}`) ?? 0,
    });
    byCell.set(job.cell.id, cell);
  }
  const cells = [...byCell.values()];
  const levels = d.jobs[0]!.cfg.levels;
  const results = compareResults(cells, levels, d.baseline.id);
  const header: CompareHeader = {
    config: d.configPath,
    grid: d.axes.map((a) => `${a.key}=${a.values.map(String).join(",")}`).join(" × "),
    runs: d.runs,
    heldOutSeeds: Object.fromEntries(levels.map((l) => [l, d.heldOut[l] ?? []])),
    baseline: { id: d.baseline.id, label: d.baseline.label },
    skipped: d.skipped,
  };
  writeJsonAtomic(join(out, "results.json"), { schemaVersion: 1, ...header, cells: results });
  writeAtomic(join(out, "results.md"), renderMarkdown(header, results));
  writeAtomic(join(out, "results.csv"), renderCsv(results));
  const svg = await curveSvg(results);
  writeAtomic(join(out, "success.svg"), svg);
  writeFileSync(join(out, "success.png"), chartToPng(svg));
  process.stdout.write(`\n${renderText(header, results)}\nresults: ${join(out, "results.md")} (.csv, .json)\nplot: ${join(out, "success.svg")} (.png)\n`);
};
