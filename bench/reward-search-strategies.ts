/**
 * Reward search strategies side by side (docs/spec/reward-search.md §8.5): `hexa bench reward-search` over groups
 * of tasks, each group at its own training budget (the env steps where that group's policies learn), and the
 * group's results (F of each strategy's final reward with its paired differences from the sparse and human
 * rewards, and which strategy pairs differ beyond noise) printed one after another.
 *
 *   node --import tsx bench/reward-search-strategies.ts [--groups acrobot,mountain_car_continuous@100000;pendulum@200000]
 *        [--runs 5] [--budget 4] [--final-trainings 3] [--samples 2] [--initial 2] [--children 2] [--parallel 2]
 *        [--out bench/out/strategies] [--group-dirs DIR;DIR…] [--write-page]
 *
 * Each group's folder (OUT/<tasks>@<steps>, or the matching entry of --group-dirs) is the bench's own, so a rerun
 * with the same folders continues where it stopped. Every run's final score (no policy: F per seed of the three
 * rewards, the run's commit and its trainings a cache answered) goes into one data file; the page is rendered from
 * it alone (bench/data-pages.ts): with --write-page both are written under docs/benchmarks/, else the page is printed.
 * Runs `./hexa` from this checkout's dist/ (`npm run build` first).
 */
import { execaSync } from "execa";
import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { z } from "zod";
import { BenchScore } from "../levels/reward-search/cli/bench-score.ts";
import { DATA_PAGES, writeDataPage } from "./data-pages.ts";
import { commandLine, machineInfo, ROOT, WRITE_PAGE_FLAG } from "./page.ts";
import { BENCH_PAGES } from "./pages.ts";
import { renderStrategiesPage, type StrategiesData } from "./strategies-page.ts";

/** The published page: classic-control tasks at budgets where PPO's policies learn, 5 runs each. */
const DEFAULT_GROUPS = "acrobot,mountain_car_continuous@100000;pendulum@200000;lander@600000";

const arg = (name: string, fallback: string): string => {
  const i = process.argv.indexOf(`--${name}`);
  const value = i > 0 ? process.argv[i + 1] : undefined;
  return value === undefined || value.startsWith("--") ? fallback : value;
};

interface Group {
  tasks: string;
  trainSteps: number;
}

const parseGroups = (text: string): Group[] =>
  text.split(";").map((g) => {
    const [tasks, steps] = g.split("@");
    const trainSteps = Number(steps);
    if (!tasks || !Number.isInteger(trainSteps) || trainSteps < 1) {
      process.stderr.write(`--groups: "${g}" is not TASK[,TASK…]@STEPS (e.g. pendulum@200000)\n`);
      process.exit(2);
    }
    return { tasks, trainSteps };
  });

const groups = parseGroups(arg("groups", DEFAULT_GROUPS));
const out = resolve(arg("out", join(ROOT, "bench", "out", "strategies")));
const shared = ["runs", "budget", "final-trainings", "samples", "initial", "children", "parallel"].flatMap((k) => [
  `--${k}`,
  arg(k, { runs: "5", budget: "4", "final-trainings": "3", samples: "2", initial: "2", children: "2", parallel: "2" }[k] ?? ""),
]);
const groupDirs = arg("group-dirs", "")
  .split(";")
  .filter((d) => d !== "");
if (groupDirs.length > 0 && groupDirs.length !== groups.length) {
  process.stderr.write(`--group-dirs: ${groupDirs.length} folder(s) for ${groups.length} group(s); give one per group, in order\n`);
  process.exit(2);
}
const hexaBin = join(ROOT, "bin", "hexa.js");
if (!existsSync(join(ROOT, "dist"))) {
  process.stderr.write("dist/ is missing: run `npm run build` first\n");
  process.exit(2);
}

/** What the group's `hexa bench reward-search` left in results.json that the data file keeps. */
const GroupResults = z.looseObject({
  budget: z.number(),
  runs: z.number(),
  trainSteps: z.number(),
  finalTrainings: z.number(),
  proposer: z.string(),
  command: z.string(),
  scores: z.array(BenchScore),
});

const started = new Date().toISOString();
const dataGroups: StrategiesData["groups"] = [];
for (const [i, g] of groups.entries()) {
  const dir = groupDirs[i] ? resolve(groupDirs[i]) : join(out, `${g.tasks.replaceAll(",", "+")}@${g.trainSteps}`);
  const args = [
    "bench",
    "reward-search",
    "--strategies",
    "rounds,eureka,rf-agent",
    "--tasks",
    g.tasks,
    "--train-steps",
    String(g.trainSteps),
    ...shared,
    "--out",
    dir,
  ];
  process.stderr.write(`hexa ${args.join(" ")}\n`);
  const r = execaSync(process.execPath, [hexaBin, ...args], { cwd: ROOT, stdin: "ignore", stdout: "ignore", stderr: "inherit", reject: false });
  if (r.exitCode !== 0) {
    process.stderr.write(`hexa bench reward-search exited ${r.exitCode ?? r.signal ?? r.shortMessage} for ${g.tasks}; rerun to continue from ${dir}\n`);
    process.exit(1);
  }
  const res = GroupResults.parse(JSON.parse(readFileSync(join(dir, "results.json"), "utf8")));
  dataGroups.push({
    tasks: g.tasks.split(","),
    strategies: ["rounds", "eureka", "rf-agent"],
    command: res.command,
    budget: res.budget,
    runs: res.runs,
    trainSteps: res.trainSteps,
    finalTrainings: res.finalTrainings,
    proposer: res.proposer,
    scores: res.scores,
  });
}

const m = machineInfo();
const data: StrategiesData = {
  schemaVersion: 1,
  command: commandLine(),
  source: "the runs of the command above (their final scores; runs it found finished in a group's folder are read, not played again)",
  machine: `${m.cpu}, ${m.cores} cores, ${m.memoryGiB} GiB memory, Node ${m.node}, ${m.platform}`,
  dates: `${started} to ${new Date().toISOString()}`,
  groups: dataGroups,
};
if (process.argv.includes(WRITE_PAGE_FLAG)) writeDataPage("reward-search-strategies", data);
else process.stdout.write(renderStrategiesPage(data, BENCH_PAGES["reward-search-strategies"].title, DATA_PAGES["reward-search-strategies"]!.file));
