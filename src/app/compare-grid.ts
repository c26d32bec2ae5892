import { existsSync, readFileSync } from "node:fs";
import type { FamilyRegistry } from "./families.ts";
import { stringify as toYaml } from "yaml";
import { ConfigError } from "../errors.ts";
import type { LevelFamily } from "../family/family.ts";
import { checkAxes, cellConfig, gridCells, parseGridFlag, runRaw, type Cell, type GridAxis } from "../loop/compare/grid.ts";
import { sharedHeldOut } from "../loop/compare/heldout.ts";
import { parseRunConfig, type RunConfig } from "../loop/run-config.ts";
import type { CompareHeader } from "../report/compare/render.ts";
import { readYamlMapping } from "../util/yaml-file.ts";
import { checkRunConfig } from "./run-check.ts";
import { changedKeys, configDigest } from "./run-setup.ts";

/** hexa compare's grid (docs/spec/method.md §8): its cells, the (cell, run) jobs, and what a rerun in the same folder must match. */

/** compare.json: what a rerun in the same folder must match (the config's data, not its path). */
export type HeldOut = Record<string, number[]>;
export type Spec = { schemaVersion: 1; config: string; base: unknown; grid: GridAxis[]; runs: number; heldOutSeeds: HeldOut };
export const anyHeldOut = (h: HeldOut) => Object.values(h).some((s) => s.length > 0);
export const heldOutText = (h: HeldOut) =>
  Object.entries(h)
    .map(([l, s]) => `${l}: ${s.join(", ") || "none"}`)
    .join("; ");

export type Job = { cell: Cell; run: number; cfg: RunConfig; yaml: string };

const gridFlags = (v: unknown): string[] => (Array.isArray(v) ? v : v === undefined ? [] : [v]).map(String);

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

/** What `hexa compare` reads of its arguments to plan the grid. */
export interface GridArgs {
  config: string;
  grid?: unknown;
  runs: number;
  heldout: number;
  baseline?: string | undefined;
}

/** A planned grid: everything checked before DIR or any run directory is made. */
export interface GridPlan {
  axes: GridAxis[];
  skipped: CompareHeader["skipped"];
  jobs: Job[];
  runnable: Cell[];
  baseline: Cell;
  family: LevelFamily;
  heldOut: HeldOut;
  spec: Spec;
}

/** The grid's axes from --grid; a cap axis is refused: the spend cap is not part of a run's config (nor its id). */
const gridAxes = (argv: GridArgs): GridAxis[] => {
  const flags = gridFlags(argv.grid);
  if (!flags.length) throw new ConfigError("--grid: name at least one axis, e.g. --grid init=off2on,online");
  const axes = flags.map(parseGridFlag);
  const capAxis = axes.find((a) => a.key === "budget" || a.key.startsWith("budget."));
  // Cells differing only in the cap would share run directories.
  if (capAxis)
    throw new ConfigError(
      `--grid ${capAxis.key}: the spend cap is the whole grid's, not a cell's; give it with --budget-usd / --budget-tokens (or budget: in ${argv.config}) and hexa compare shares it among the runs`,
    );
  return axes;
};

/** Each cell's jobs, or why hexa run would refuse the cell. */
const cellJobs = (families: FamilyRegistry, cells: readonly Cell[], runs: number): { jobs: Job[]; runnable: Cell[]; skipped: CompareHeader["skipped"] } => {
  const all = families.all();
  const skipped: CompareHeader["skipped"] = [];
  const jobs: Job[] = [];
  const runnable: Cell[] = [];
  for (const cell of cells) {
    const c = cellConfig(cell, all);
    let reason = "skipped" in c ? c.skipped : undefined;
    if (!reason && "cfg" in c) {
      try {
        checkRunConfig(families, c.cfg, cell.label);
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
      jobs.push({ cell, run, cfg: parseRunConfig(raw, cell.label, all), yaml: toYaml(raw) });
    }
  }
  return { jobs, runnable, skipped };
};

/** Reads the base config and the grid, and plans every job; everything that can be refused is refused here. */
export const planGrid = async (families: FamilyRegistry, argv: GridArgs, note: (line: string) => void): Promise<GridPlan> => {
  const configPath = argv.config;
  const base = readYamlMapping(configPath);
  const axes = gridAxes(argv);
  // A caller other than the command (hexa bench) may not have built them.
  await families.load();
  checkAxes(base, axes, families.all());
  const { jobs, runnable, skipped } = cellJobs(families, gridCells(base, axes), argv.runs);
  for (const s of skipped) note(`skipped ${s.id} (${s.label}): ${s.reason}`);
  if (!runnable.length) throw new ConfigError(`--grid: every cell is refused by hexa run (${skipped.map((s) => `${s.id}: ${s.reason}`).join("; ")})`);
  const baseline = pickBaseline(argv.baseline, runnable);
  const cfgs = runnable.map((c) => jobs.find((j) => j.cell === c)!.cfg);
  const family = checkRunConfig(families, cfgs[0]!, configPath);
  const want = argv.heldout;
  const heldOut: HeldOut = want ? sharedHeldOut(cfgs, family, want) : {};
  for (const [level, s] of Object.entries(heldOut)) {
    if (s.length < want) note(`note: only ${s.length} vetted seeds of ${level} are unseen by every cell (asked ${want}); its held-out figures use ${s.length}`);
  }
  const spec: Spec = {
    schemaVersion: 1,
    config: configPath,
    base: configDigest(JSON.stringify(base)).config,
    grid: axes,
    runs: argv.runs,
    heldOutSeeds: heldOut,
  };
  return { axes, skipped, jobs, runnable, baseline, family, heldOut, spec };
};

/** A folder that holds another comparison is refused, naming what changed. */
export const checkSpec = (specPath: string, spec: Spec): void => {
  if (!existsSync(specPath)) return;
  const before = JSON.parse(readFileSync(specPath, "utf8")) as Spec;
  const diff = changedKeys({ ...before, config: undefined }, { ...JSON.parse(JSON.stringify(spec)), config: undefined });
  if (diff.length) {
    throw new ConfigError(
      `${specPath}: this folder holds another comparison (changed: ${diff.join(", ")}); rerun with its grid, runs and config (see compare.json), or use another --out`,
    );
  }
};
