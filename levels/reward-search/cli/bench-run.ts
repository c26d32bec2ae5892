import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { stringify as toYaml } from "yaml";
import { readFinalScores } from "../../../src/store/final-scores.ts";
import { writeAtomic, writeJsonAtomic } from "../../../src/store/jsonl.ts";
import { benchSvg, renderBenchCsv, renderBenchMarkdown } from "../../../src/report/compare/strategy-bench.ts";
import { benchBudgets, benchDiffs, benchRows, benchScoreOf, type BenchProvenance, type BenchScore } from "./bench-score.ts";
import { chartToPng } from "../../../src/report/png.ts";
import type { FamilyHost } from "../../../src/family/host.ts";

/** What `hexa bench reward-search` (levels/reward-search/cli/bench.ts) runs, its flags checked. */
export interface BenchPlan {
  strategies: string[];
  runs: number;
  parallel: number;
  tasks: string[];
  budget: number;
  trainSteps: number;
  finalTrainings: number;
  samples: number;
  initial: number;
  children: number;
  sharedInitial: boolean;
}

/** Episodes of a task in the rounds cell (offline + stream): the budget is split over them. */
const roundsEpisodes = (budget: number) => Math.min(4, budget);

/**
 * The base config of the grid. The rounds cell plays one offline episode and E − 1 rounds of one episode per
 * task, each with a share ⌈B / E⌉ of the budget and turns enough to spend it (describe_task and check_reward
 * take one turn each), so rounds is held to the same trainings as the searches.
 */
const benchConfig = (o: Omit<BenchPlan, "strategies" | "runs" | "parallel"> & { out: string }) => {
  const episodes = roundsEpisodes(o.budget);
  return {
    family: "reward-search",
    levels: o.tasks,
    agent: "heuristic",
    evolver: "heuristic",
    init: "off2on",
    update: "evolving",
    rounds: episodes - 1,
    episodesPerRound: 1,
    offline: { episodes: 1 },
    actor: { maxTurns: Math.ceil(o.budget / episodes) + 2 },
    concurrency: 2,
    search: { budget: o.budget, eureka: { samples: o.samples }, rfAgent: { initial: o.initial, children: o.children, sharedInitial: o.sharedInitial } },
    rewardSearch: {
      // One size for every training (the rounds' finish and the final scoring included): equal env steps per candidate.
      trainSteps: o.trainSteps,
      finishSteps: o.trainSteps,
      finalTrainings: o.finalTrainings,
      // The benchmark's own trainer cache: a rerun continues without retraining, and nothing lands elsewhere.
      cacheDir: join(o.out, ".trainer-cache"),
      jobsDir: join(o.out, ".trainer-jobs"),
    },
  };
};

const textOf = (path: string): string => (existsSync(path) ? readFileSync(path, "utf8") : "");

/**
 * Where a run's score of `task` came from: the commit in its run.json, and its search trainings (a search's
 * candidates, the rounds' train_policy calls) with how many a trainer cache answered, from the `cached` flag each
 * records. A run without such lines has cache use unrecorded (null).
 */
const runProvenance = (dir: string, task: string, wallS: number): BenchProvenance => {
  const meta = JSON.parse(textOf(join(dir, "run.json")) || "{}") as { code?: { commit?: unknown } };
  const lines = [
    ...textOf(join(dir, "search", task, "candidates.jsonl")).split("\n"),
    ...textOf(join(dir, "episodes.jsonl"))
      .split("\n")
      .filter((l) => l.includes(`"level":${JSON.stringify(task)}`)),
  ];
  const flags = lines.flatMap((l) => [...l.matchAll(/"cached":(true|false)/g)].map((m) => m[1] === "true"));
  return {
    wallS,
    commit: typeof meta.code?.commit === "string" ? meta.code.commit : null,
    cache: flags.length ? { trainings: flags.length, cached: flags.filter(Boolean).length } : null,
  };
};

/** Runs the bench's compare grids in `out` (resumable), then tables the final scores: results.md, .csv, .json, scores.svg / .png. */
export const runBench = async (plan: BenchPlan, out: string, host: FamilyHost): Promise<void> => {
  const { strategies, runs, budget, tasks, ...o } = plan;
  mkdirSync(out, { recursive: true });
  const t0 = performance.now();
  // Run r is a compare grid over method on task instance r (seeds.offset r: its own training and evaluation seeds),
  // so every strategy searches the same instance in run r and their final scores pair by run and fresh seed.
  const scores: BenchScore[] = [];
  for (let run = 0; run < runs; run++) {
    const configPath = join(out, `bench-config-r${run}.yaml`);
    const cfg = { ...benchConfig({ ...plan, out }), seeds: { offset: run } };
    writeAtomic(configPath, `# hexa bench reward-search, run ${run}: the base config of its compare grid over method\n${toYaml(cfg)}`);
    const compareDir = join(out, "compare", `r${run}`);
    await host.runGrid({ config: configPath, grid: [`method=${strategies.join(",")}`], runs: 1, heldout: 0, parallel: plan.parallel }, compareDir);
    type Results = { cells: { label: string; runs: { run: number; dir: string; wallS: number }[] }[] };
    const results = JSON.parse(readFileSync(join(compareDir, "results.json"), "utf8")) as Results;
    for (const cell of results.cells) {
      const strategy = cell.label.replace(/^method=/, "");
      for (const r of cell.runs)
        for (const f of readFinalScores(r.dir)?.levels ?? []) scores.push(benchScoreOf(f, strategy, run, runProvenance(r.dir, f.level, r.wallS)));
    }
  }
  const wallS = (performance.now() - t0) / 1000;
  const compareDir = join(out, "compare");
  const rows = benchRows(scores, strategies, tasks);
  const diffs = benchDiffs(scores, strategies, tasks);
  const command = `hexa bench reward-search --strategies ${strategies.join(",")} --tasks ${tasks.join(",")} --budget ${budget} --runs ${runs} --train-steps ${o.trainSteps} --final-trainings ${o.finalTrainings} --samples ${o.samples} --initial ${o.initial} --children ${o.children}${o.sharedInitial ? " --shared-initial" : ""}`;
  const header = {
    budget,
    runs,
    trainSteps: o.trainSteps,
    finalTrainings: o.finalTrainings,
    proposer: "heuristic (no LLM)",
    wallS,
    command,
    budgets: benchBudgets(scores, tasks),
  };
  writeJsonAtomic(join(out, "results.json"), { schemaVersion: 4, ...header, tasks, strategies, rows, diffs, scores });
  const md = renderBenchMarkdown(header, rows, diffs);
  writeAtomic(join(out, "results.md"), md);
  writeAtomic(join(out, "results.csv"), renderBenchCsv(rows));
  const svg = await benchSvg(rows);
  writeAtomic(join(out, "scores.svg"), svg);
  writeFileSync(join(out, "scores.png"), chartToPng(svg));
  process.stdout.write(`\n${md}\nresults: ${join(out, "results.md")} (.csv, .json), plot: ${join(out, "scores.svg")} (.png); runs in ${compareDir}\n`);
};
