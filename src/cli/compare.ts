import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { basename, extname, join, resolve } from "node:path";
import type { Argv } from "yargs";
import { z } from "zod";
import { parse as parseYaml, stringify as toYaml } from "yaml";
import { ConfigError, RunStopped } from "../errors.ts";
import { formatUsd } from "../llm/budget.ts";
import { checkAxes, cellConfig, gridCells, parseGridFlag, runRaw, type Cell, type GridAxis } from "../loop/compare/grid.ts";
import { heldOutArg, sharedHeldOut } from "../loop/compare/heldout.ts";
import { mapLimit } from "../loop/pool.ts";
import { parseRunConfig, type RunConfig } from "../loop/run-config.ts";
import { compareResults, type CellInput, type EpisodeOutcome } from "../report/compare/results.ts";
import { curveSvg } from "../report/compare/plot.ts";
import { renderCsv, renderMarkdown, renderText, type CompareHeader } from "../report/compare/render.ts";
import { chartToPng } from "../report/png.ts";
import { writeReport } from "./inspect-report.ts";
import { appendJsonl, readJsonl, writeAtomic, writeJsonAtomic } from "../store/jsonl.ts";
import type { RunDir } from "../store/run-dir.ts";
import { readConfigText } from "../store/config-file.ts";
import { takePidLock } from "../store/pid-lock.ts";
import type { EpisodeRecord } from "../store/run-records.ts";
import { readFinalScores } from "../store/final-scores.ts";
import type { LevelFamily } from "../family/family.ts";
import { allFamilies, loadFamilies } from "../app/families.ts";
import { type ArgsOf, defineCommand } from "../cli-kit/define-command.ts";
import { intFlag } from "../cli-kit/flags.ts";
import { checkRunConfig } from "./run-check.ts";
import { changedKeys, configDigest } from "./run-setup.ts";
import { asUserError } from "../cli-kit/write-file.ts";
import { child, finished, findRun, heldOutOf } from "./compare-runs.ts";
import { checkBackend } from "./backend.ts";
import { DOCTOR_OPTION, doctorSkipped, preflight, rolesOf, servedChanges } from "./preflight.ts";
import { budgetFrom, budgetOptions } from "./budget.ts";
import { checkGridForecast, evalSpent, GridCap, jobForecasts, runSpent } from "./compare-budget.ts";

/**
 * `hexa compare` (docs/spec/method.md §8): a grid of configurations x runs, each (cell, run) an ordinary run directory under
 * DIR/runs/ made by a `hexa run` child process (isolation; --resume after a crash), then `hexa eval` on one
 * shared held-out seed list, then the paired statistics. Rerunning the same command continues where it stopped.
 */

/** compare.json: what a rerun in the same folder must match (the config's data, not its path). */
type HeldOut = Record<string, number[]>;
type Spec = { schemaVersion: 1; config: string; base: unknown; grid: GridAxis[]; runs: number; heldOutSeeds: HeldOut };
const anyHeldOut = (h: HeldOut) => Object.values(h).some((s) => s.length > 0);
const heldOutText = (h: HeldOut) =>
  Object.entries(h)
    .map(([l, s]) => `${l}: ${s.join(", ") || "none"}`)
    .join("; ");

type Job = { cell: Cell; run: number; cfg: RunConfig; yaml: string };

const gridFlags = (v: unknown): string[] => (Array.isArray(v) ? v : v === undefined ? [] : [v]).map(String);

const compareFlags = (y: Argv) =>
  budgetOptions(y, "the whole grid, every run and its held-out evaluation together; a rerun may raise it")
    .positional("config", { type: "string", demandOption: true, describe: "the base run config, e.g. configs/quickstart.yaml" })
    .option("grid", { type: "string", array: true, describe: "KEY=V1,V2 over a dotted config key (repeat for more axes), e.g. --grid init=off2on,online" })
    .option("runs", { type: "string", default: 3, coerce: intFlag("runs", 1, 100), describe: "runs per cell; they differ only in the run seed (0, 1, 2, …)" })
    .option("out", { type: "string", describe: "the comparison folder (default compare/<config name>); rerun with the same one to continue" })
    .option("heldout", {
      type: "string",
      default: 20,
      coerce: intFlag("heldout", 0, 10_000),
      describe: "held-out seeds per level for each run's frozen final bank (0: none)",
    })
    .option("baseline", {
      type: "string",
      describe: "the cell the others are compared with: its id (c1, c2, …) or its values (init=online,retriever.topSkills=0); default the first",
    })
    .option("parallel", { type: "string", default: 1, coerce: intFlag("parallel", 1, 64), describe: "runs played at once (each a hexa run process)" })
    .option("backend", {
      type: "string",
      describe: "where the runs' episodes are played: local, or redis://HOST:PORT for hexa worker processes (raise --parallel to keep them busy)",
    })
    .option("doctor", DOCTOR_OPTION);
/** The flags compare reads; a caller other than the command (hexa bench) gives the required ones. */
type CompareArgs = Pick<ArgsOf<typeof compareFlags>, "config" | "runs" | "heldout" | "parallel"> & Partial<ArgsOf<typeof compareFlags>>;

export const compareCommand = defineCommand({
  command: "compare <config>",
  describe: "a grid of configurations x runs on paired seeds, held-out evaluation and paired bootstrap statistics; writes DIR/results.*",
  builder: compareFlags,
  handler: async (argv) => {
    const out = resolve(argv.out ?? join("compare", basename(argv.config, extname(argv.config))));
    try {
      await compare(argv, out);
    } catch (e) {
      throw asUserError(e, `check that ${out} is a writable folder with space, then rerun the same command to continue`);
    }
  },
});

const readBase = (path: string): Record<string, unknown> => {
  const text = readConfigText(path);
  let raw: unknown;
  try {
    raw = parseYaml(text) ?? {};
  } catch (e) {
    throw new ConfigError(`${path}: not valid YAML (${(e as Error).message.split("\n")[0]})`);
  }
  if (raw === null || typeof raw !== "object" || Array.isArray(raw))
    throw new ConfigError(`${path}: a run config is a mapping of keys (got ${Array.isArray(raw) ? "a list" : typeof raw})`);
  return raw as Record<string, unknown>;
};

const pickBaseline = (flag: string | undefined, cells: readonly Cell[]): Cell => {
  if (flag === undefined) return cells[0]!;
  const norm = (s: string) =>
    s
      .split(",")
      .map((p) => p.trim().replace(/\s+/g, ""))
      .filter(Boolean)
      .sort()
      .join(",");
  const found = cells.find((c) => c.id === flag.trim() || norm(c.label) === norm(flag));
  if (!found) throw new ConfigError(`--baseline: no runnable cell ${JSON.stringify(flag)}; cells: ${cells.map((c) => `${c.id} (${c.label})`).join("; ")}`);
  return found;
};

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

export const compare = async (argv: CompareArgs, out: string): Promise<void> => {
  const configPath = argv.config;
  const runs = argv.runs;
  // Passed on to each cell's hexa run: the grid checked every cell's endpoints once, before the first run.
  const passOn = [...(argv.backend === undefined ? [] : ["--backend", argv.backend]), ...(doctorSkipped(argv, process.env) ? ["--no-doctor"] : [])];
  if (argv.backend !== undefined) checkBackend(argv.backend, "--backend");
  const note = (line: string) => process.stderr.write(`${line}\n`);
  // Everything that can be refused is checked before DIR or any run directory is made.
  const base = readBase(configPath);
  const flags = gridFlags(argv.grid);
  if (!flags.length) throw new ConfigError("--grid: name at least one axis, e.g. --grid init=off2on,online");
  const axes = flags.map(parseGridFlag);
  const capAxis = axes.find((a) => a.key === "budget" || a.key.startsWith("budget."));
  // The cap is not part of a run's config (nor its id), so cells differing only in it would share run directories.
  if (capAxis)
    throw new ConfigError(
      `--grid ${capAxis.key}: the spend cap is the whole grid's, not a cell's; give it with --budget-usd / --budget-tokens (or budget: in ${configPath}) and hexa compare shares it among the runs`,
    );
  // A caller other than the command (hexa bench) may not have built them.
  await loadFamilies();
  const families = allFamilies();
  checkAxes(base, axes, families);
  const cells = gridCells(base, axes);
  const skipped: CompareHeader["skipped"] = [];
  const jobs: Job[] = [];
  const runnable: Cell[] = [];
  for (const cell of cells) {
    const c = cellConfig(cell, families);
    let reason = "skipped" in c ? c.skipped : undefined;
    if (!reason && "cfg" in c) {
      try {
        checkRunConfig(c.cfg, cell.label);
      } catch (e) {
        if (!(e instanceof ConfigError)) throw e;
        reason = e.message;
      }
    }
    if (reason) {
      skipped.push({ id: cell.id, label: cell.label, reason });
      continue;
    }
    runnable.push(cell);
    for (let run = 0; run < runs; run++) {
      const raw = runRaw(cell, run);
      jobs.push({ cell, run, cfg: parseRunConfig(raw, cell.label, families), yaml: toYaml(raw) });
    }
  }
  for (const s of skipped) note(`skipped ${s.id} (${s.label}): ${s.reason}`);
  if (!runnable.length) throw new ConfigError(`--grid: every cell is refused by hexa run (${skipped.map((s) => `${s.id}: ${s.reason}`).join("; ")})`);
  const baseline = pickBaseline(argv.baseline, runnable);
  const cfgs = runnable.map((c) => jobs.find((j) => j.cell === c)!.cfg);
  const family = checkRunConfig(cfgs[0]!, configPath);
  const want = argv.heldout;
  const heldOut: HeldOut = want ? sharedHeldOut(cfgs, family, want) : {};
  for (const [level, s] of Object.entries(heldOut)) {
    if (s.length < want) note(`note: only ${s.length} vetted seeds of ${level} are unseen by every cell (asked ${want}); its held-out figures use ${s.length}`);
  }

  const spec: Spec = { schemaVersion: 1, config: configPath, base: configDigest(JSON.stringify(base)).config, grid: axes, runs, heldOutSeeds: heldOut };
  const specPath = join(out, "compare.json");
  if (existsSync(specPath)) {
    const before = JSON.parse(readFileSync(specPath, "utf8")) as Spec;
    const diff = changedKeys({ ...before, config: undefined }, { ...JSON.parse(JSON.stringify(spec)), config: undefined });
    if (diff.length) {
      throw new ConfigError(
        `${specPath}: this folder holds another comparison (changed: ${diff.join(", ")}); rerun with its grid, runs and config (see compare.json), or use another --out`,
      );
    }
  }
  const runsDir = join(out, "runs");
  const key = (job: Job) => `${job.cell.id} run ${job.run}`;
  const cap = budgetFrom(jobs[0]!.cfg.budget, argv);
  const needsEval = (job: Job, dir: RunDir | undefined) => anyHeldOut(heldOut) && !family.searchFor?.(job.cfg) && !(dir && heldOutOf(dir, job.cfg, heldOut));
  const capped = jobs.map((job) => {
    const dir = findRun(runsDir, job.cfg);
    return { key: key(job), cfg: job.cfg, dir, runLeft: !dir || !finished(dir, job.cfg, family), evalSeeds: needsEval(job, dir) ? heldOut : undefined };
  });
  const forecasts = jobForecasts(capped, family, runsDir);
  const gridCap = new GridCap(cap, capped, forecasts, (k) => findRun(runsDir, jobs.find((j) => key(j) === k)!.cfg));
  checkGridForecast(capped, forecasts, cap, gridCap.spent(), { yes: argv.yes === true, print: note });
  if (!doctorSkipped(argv, process.env)) {
    // Every cell's LLM roles, before any run spends: a grid over llm.actor.model may name a model one endpoint lacks.
    // A cell's runs made earlier are told apart when their endpoint now answers as another model or fingerprint.
    for (const c of runnable) {
      const cellJobs = jobs.filter((j) => j.cell === c);
      const cfg = cellJobs[0]!.cfg;
      const served = await preflight(cfg.llm, rolesOf(cfg, family.searchFor?.(cfg) !== undefined), {
        env: process.env,
        cacheDir: runsDir,
        where: `${configPath} (cell ${c.id})`,
      });
      const made = cellJobs.flatMap((j) => findRun(runsDir, j.cfg) ?? []);
      if (served) made.forEach((dir) => servedChanges(dir.path, served).forEach(note));
    }
  }
  mkdirSync(join(out, "cells"), { recursive: true });
  mkdirSync(join(out, "logs"), { recursive: true });
  if (!existsSync(specPath)) writeJsonAtomic(specPath, spec);
  const release = lockDir(out);
  try {
    const logPath = join(out, "compare-log.jsonl");
    let done = 0;
    const failures: string[] = [];
    let stop: string | undefined;
    const t0 = performance.now();
    note(
      `compare ${out}: ${runnable.length} cell(s) × ${runs} run(s), held-out seeds ${anyHeldOut(heldOut) ? heldOutText(heldOut) : "none"}${skipped.length ? `, ${skipped.length} cell(s) skipped` : ""}`,
    );
    await mapLimit(jobs, argv.parallel, async (job) => {
      if (stop) return;
      const name = key(job);
      const cellFile = join(out, "cells", `${job.cell.id}-r${job.run}.yaml`);
      writeAtomic(cellFile, `# hexa compare ${job.cell.id} (${job.cell.label}), run ${job.run}\n${job.yaml}`);
      const logFile = join(out, "logs", `${job.cell.id}-r${job.run}.log`);
      // Each step runs under its share of the grid's cap; a child stopped by it (exit 3) stops the grid.
      const step = async (what: string, kind: "run" | "eval", args: string[], last: boolean): Promise<boolean> => {
        if (stop) return false;
        const now = findRun(runsDir, job.cfg);
        const share = gridCap.flags(name, kind, kind === "run" ? runSpent(now) : evalSpent(now!, heldOut));
        if (!share) {
          stop = `the grid's cap is spent before ${name}'s ${kind}`;
          return false;
        }
        const r = await child([...args, ...share], logFile);
        gridCap.ended(name, kind, last || r.code !== 0);
        appendJsonl(logPath, [{ cell: job.cell.id, run: job.run, step: what, ms: Math.round(r.ms), exit: r.code }]);
        if (r.code === 3) stop ??= `${name}'s ${kind} stopped at its share of the grid's cap (see ${logFile})`;
        else if (r.code !== 0) failures.push(`${name}: hexa ${what} exited ${r.code} (see ${logFile})`);
        return r.code === 0;
      };
      let dir = findRun(runsDir, job.cfg);
      const evalLeft = () => needsEval(job, findRun(runsDir, job.cfg));
      if (!dir || !finished(dir, job.cfg, family)) {
        const args = dir ? ["run", "--resume", dir.path, ...passOn] : ["run", cellFile, "--runs-dir", runsDir, ...passOn];
        if (!(await step(dir ? "run --resume" : "run", "run", args, !anyHeldOut(heldOut) || family.searchFor?.(job.cfg) !== undefined))) return;
        dir = findRun(runsDir, job.cfg)!;
      }
      // A whole search has no bank to evaluate frozen: its final scores are its held-out figures.
      if (evalLeft() && !(await step("eval", "eval", ["eval", dir.path, "--seeds", heldOutArg(heldOut)], true))) return;
      note(`[${++done}/${jobs.length}] ${name} (${job.cell.label}) done, ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    });
    if (stop) {
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
      const failed = failures.length ? `; besides, ${failures.length} run(s) failed: ${failures.join("; ")}` : "";
      throw new RunStopped(
        `compare stopped: budget — ${stop}; ${done} of ${jobs.length} run(s) finished and are kept, the others keep what they played; the grid has spent ${gridCap.spentText()} of ${c}${failed}. No results are written yet: rerun the same hexa compare command with a raised cap (e.g. ${raise}) to continue; no episode is played twice`,
      );
    }
    await writeResults(out, { configPath, axes, runs, heldOut, baseline, skipped, jobs, runsDir, logPath, family });
    // The whole grid as one hexa inspect report: a line per cell with a band over its runs (docs/ARCHITECTURE.md §8).
    if (!failures.length) note(`report: ${writeReport(runsDir, join(out, "report.html"))}`);
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
    const dir = findRun(d.runsDir, job.cfg);
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
  process.stdout.write(`\n${renderText(header, results)}\nresults: ${join(out, "results.md")} (.csv, .json), plot: ${join(out, "success.svg")} (.png)\n`);
};
