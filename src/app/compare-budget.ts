import { checkPriced, formatUsd, hasCap, NO_SPEND, type Budget, type Spend } from "../llm/budget.ts";
import { isEmbedded } from "../llm/config.ts";
import { GridBudget, type Weight } from "../loop/compare/grid-budget.ts";
import type { LevelFamily } from "../family/family.ts";
import { forecastEval, forecastRun, NO_FORECAST, sumForecasts, type Forecast } from "../loop/forecast.ts";
import { usesBank, type RunConfig } from "../loop/run-config.ts";
import { evalUsage, stoppedEvalOf } from "../store/eval-spend.ts";
import { readJsonl } from "../store/jsonl.ts";
import type { RunDir } from "../store/run-dir.ts";
import { UsageLine } from "../store/run-records.ts";
import { checkForecast, earlierUsage, spendText, spentIn } from "./budget.ts";

/**
 * `hexa compare`'s spend cap over the whole grid (docs/spec/method.md §11): `--budget-usd` / `--budget-tokens`, else the
 * `budget:` of the compare's CONFIG, caps every run of the grid and its held-out evaluation together. Before
 * anything is written the grid's forecast (the sum of each job's) is printed and a start over the cap refused
 * without --yes; while it runs, each child `hexa run` / `hexa eval` gets its share as its own cap (GridBudget).
 */

/** A (cell, run) of the grid as the cap sees it, before anything of this compare starts. */
export interface CappedJob {
  /** e.g. "c1 run 0" */
  key: string;
  cfg: RunConfig;
  dir: RunDir | undefined;
  runLeft: boolean;
  /** The held-out seeds its evaluation still needs, or undefined when that is done or not asked for. */
  evalSeeds: Record<string, number[]> | undefined;
}

export interface JobForecast {
  run: Forecast;
  eval: Forecast;
}

const runUsage = (dir: RunDir | undefined) => (dir ? readJsonl(dir.file("usage"), UsageLine, { repair: false }) : []);
const plus = (a: Spend, b: Spend): Spend => ({ usd: a.usd + b.usd, tokens: a.tokens + b.tokens, calls: a.calls + b.calls });

/** Everything a job has spent: its run's model calls and its evaluations'. */
const jobSpent = (dir: RunDir | undefined): Spend => (dir ? plus(spentIn(runUsage(dir)), spentIn(evalUsage(dir.path))) : NO_SPEND);

/** What a stopped evaluation of these seeds already spent: what the child's own gate counts at its start. */
export const evalSpent = (dir: RunDir, seeds: Record<string, number[]>): Spend => spentIn(stoppedEvalOf(dir.path, seeds)?.usage ?? []);
export const runSpent = (dir: RunDir | undefined): Spend => spentIn(runUsage(dir));

/** Per-episode figures come from the grid's own recorded runs (DIR/runs), as each child's forecast does. */
export const jobForecasts = (jobs: readonly CappedJob[], family: LevelFamily, runsDir: string): JobForecast[] => {
  const earlier = earlierUsage([runsDir]);
  return jobs.map((j) => {
    const run = j.runLeft
      ? forecastRun({
          cfg: j.cfg,
          family,
          recorded: new Set(j.dir?.episodes({ repair: false }).map((e) => e.id) ?? []),
          committed: j.dir?.bankLog({ repair: false }).done ?? new Set<string>(),
          earlier,
          ...(j.dir ? { dir: j.dir.path } : {}),
        })
      : NO_FORECAST;
    const seeds = j.evalSeeds;
    if (!seeds) return { run, eval: NO_FORECAST };
    const total = Object.values(seeds).reduce((n, s) => n + s.length, 0);
    const played = j.dir ? (stoppedEvalOf(j.dir.path, seeds)?.played.length ?? 0) : 0;
    return { run, eval: forecastEval({ cfg: j.cfg, family, episodes: total - played, earlier: [...(j.dir ? [evalUsage(j.dir.path)] : []), ...earlier] }) };
  });
};

const roles = (cfg: RunConfig) => [
  ...(cfg.agent !== "heuristic" ? (["actor"] as const) : []),
  ...(usesBank(cfg) && cfg.evolver === "llm" ? (["evolver"] as const) : []),
];

/** Prints the grid's forecast and refuses a start over the cap (what is left of it, on a rerun) unless --yes. */
export const checkGridForecast = (
  jobs: readonly CappedJob[],
  forecasts: readonly JobForecast[],
  cap: Budget,
  spent: Spend,
  o: { yes: boolean; print: (line: string) => void },
): void => {
  for (const j of jobs)
    checkPriced(
      cap,
      j.cfg.llm.prices,
      // An embedded model costs nothing (src/llm/accounting.ts priceOf).
      roles(j.cfg)
        .filter((r) => !isEmbedded(j.cfg.llm[r]))
        .map((r) => ({ where: `${j.key}: llm.${r}`, model: j.cfg.llm[r].model })),
    );
  const all = forecasts.flatMap((f) => [f.run, f.eval]);
  const perJob = jobs.flatMap((j, i) => {
    const { run, eval: ev } = forecasts[i]!;
    if (run.calls + ev.calls === 0) return [];
    const held = ev.episodes ? `, ${ev.episodes} held-out episode(s)` : "";
    return [
      `${j.key}: ${run.episodes} episode(s), ${run.updates} bank update(s)${held}: ~${(run.tokens + ev.tokens).toLocaleString("en")} tokens, ~${formatUsd(run.usd + ev.usd)}`,
    ];
  });
  // Where the per-episode figures come from, once per role and figure (the counts are in the lines above).
  const per = new Set(all.flatMap((f) => f.basis.map((line) => line.replace(/: \d+ (\w+)\(s\) × /, ": "))));
  const total = sumForecasts(all, [...perJob, ...per]);
  checkForecast(total, cap, spent, { yes: o.yes, what: "this grid", print: o.print });
};

const weight = (f: Forecast): Weight => ({ usd: f.usd, tokens: f.tokens });
const ZERO: Weight = { usd: 0, tokens: 0 };

/** The grid's cap while it runs: each step's share as the child's --budget-* flags (see GridBudget for the rule). */
export class GridCap {
  private readonly budget: GridBudget;
  private readonly left = new Map<string, { run: Weight; eval: Weight; calls: { run: number; eval: number } }>();
  private readonly busy = new Set<string>();
  private readonly done = new Set<string>();

  constructor(
    readonly cap: Budget,
    jobs: readonly CappedJob[],
    forecasts: readonly JobForecast[],
    dirOf: (key: string) => RunDir | undefined,
  ) {
    this.budget = new GridBudget(
      cap,
      jobs.map((j) => j.key),
      (k) => jobSpent(dirOf(k)),
    );
    jobs.forEach((j, i) => {
      const f = forecasts[i]!;
      this.left.set(j.key, { run: weight(f.run), eval: weight(f.eval), calls: { run: f.run.calls, eval: f.eval.calls } });
      if (!j.runLeft && !j.evalSeeds) this.done.add(j.key);
    });
  }

  /**
   * The flags for the step about to start (`stepSpent`: what the child's own gate will count as spent at its
   * start), [] for a step with no model call foreseen, undefined when the cap leaves nothing for it.
   */
  flags(key: string, step: "run" | "eval", stepSpent: Spend): string[] | undefined {
    if (!hasCap(this.cap)) return [];
    const l = this.left.get(key)!;
    if (l.calls[step] === 0) return [];
    const others = [...this.left]
      .filter(([k]) => k !== key && !this.busy.has(k) && !this.done.has(k))
      .map(([, v]) => ({ usd: v.run.usd + v.eval.usd, tokens: v.run.tokens + v.eval.tokens }));
    const own = l[step];
    const h = this.budget.take(key, own, [own, ...(step === "run" ? [l.eval] : []), ...others]);
    if (!h) return undefined;
    this.busy.add(key);
    return [
      "--yes",
      ...(h.usd !== undefined ? ["--budget-usd", String(stepSpent.usd + h.usd)] : []),
      ...(h.tokens !== undefined ? ["--budget-tokens", String(Math.floor(stepSpent.tokens + h.tokens))] : []),
    ];
  }

  /** The step ended (finished, stopped or failed): its job counts at what its files say. */
  ended(key: string, step: "run" | "eval", last: boolean): void {
    this.budget.release(key);
    this.busy.delete(key);
    const l = this.left.get(key)!;
    this.left.set(key, step === "run" ? { ...l, run: ZERO, calls: { ...l.calls, run: 0 } } : { ...l, eval: ZERO, calls: { ...l.calls, eval: 0 } });
    if (last) this.done.add(key);
  }

  /** What the grid's runs and evaluations have spent so far, by their files. */
  spent(): Spend {
    return this.budget.spent();
  }

  spentText(): string {
    return spendText(this.budget.spent());
  }
}
