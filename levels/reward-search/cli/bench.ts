import { resolve } from "node:path";
import type { Argv } from "yargs";
import type { FamilyHost } from "../../../src/family/host.ts";
import { type ArgsOf, defineCommand, withOptionsByName } from "../../../src/cli-kit/define-command.ts";
import { ConfigError } from "../../../src/errors.ts";
import { DEFAULT_FINAL_TRAININGS } from "../search/final-protocol.ts";
import { METHODS as STRATEGY_NAMES } from "../../../src/loop/run-choices.ts";

/** The strategies a bench compares unless --strategies names others: p2p also searches hyper-parameters, so it joins when named. */
const DEFAULT_STRATEGIES = STRATEGY_NAMES.filter((s) => s !== "p2p");
import { intFlag } from "../../../src/cli-kit/flags.ts";
import { SearchConfig, searchBudget } from "../../../src/search/config.ts";
import { configFromFlags, flagOptions } from "../../../src/cli-kit/schema-flags.ts";
import { searchFlags } from "../../../src/search/flags.ts";
import { asUserError } from "../../../src/cli-kit/write-file.ts";
import type { BenchPlan } from "./bench-run.ts";
import { INTENTS_DEFAULTS, INTENTS_OUT, intentsBenchFlags, refuseIntentsFlags } from "./bench-intents.ts";

/**
 * `hexa bench reward-search` (docs/spec/reward-search.md §8.5): the reward-search strategies side by side on the same tasks, trainer
 * and number of trained candidates × env steps, with the heuristic proposer (no model). Run r is a `hexa compare`
 * grid over the run's `method` on task instance r (DIR/compare/r<r>/, resumable by rerunning the same command);
 * the runs' final scores (final-scores.json, by the final scoring protocol) are tabled per task with the sparse
 * and human rows and the paired differences: DIR/results.md, .csv, .json and scores.svg / .png.
 */

// Two MuJoCo locomotion tasks and one classic one; pendulum's hand-written reward beats its sparse one at a budget that
// trains in seconds here (F −354 vs −991 at 65k steps; cartpole's and mountain car's tie or reverse).
const DEFAULT_TASKS = ["hopper", "half_cheetah", "pendulum"];

/** The bench's own floor on --budget: the rounds cell plays one offline episode, then at least one round (rounds ≥ 1). */
const MIN_BUDGET = 2;

/**
 * The `search:` knobs every strategy of the bench gets: flags of the slice's schema, as in `hexa search`
 * (src/search/flags.ts), so their names, help and defaults are the schema's; --budget's help adds the floor.
 */
const KNOBS = searchFlags()
  .filter((f) => ["budget", "samples", "initial", "children", "shared-initial"].includes(f.name))
  .map((f) => (f.name === "budget" ? { ...f, describe: `${f.describe}; here the same for every strategy, at least ${MIN_BUDGET}` } : f));

const list = (v: unknown): string[] =>
  String(v)
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);

const REWARD_SEARCH_TRAIN_STEPS = 65536;
const REWARD_SEARCH_OUT = "bench/out/reward-search";

const benchFlags = (y: Argv) =>
  withOptionsByName(
    intentsBenchFlags(y)
      .positional("suite", { choices: ["reward-search", "intents"] as const, demandOption: true, describe: "the benchmark" })
      .option("strategies", {
        type: "string",
        default: DEFAULT_STRATEGIES.join(","),
        describe: `strategies compared (${STRATEGY_NAMES.join(", ")}; p2p when named: its budget a multiple of --train-seeds)`,
      })
      .option("tasks", {
        type: "string",
        default: DEFAULT_TASKS.join(","),
        describe: "reward-search tasks with a human reward (hexa levels list --family reward-search)",
      })
      .option("runs", {
        type: "string",
        default: 3,
        coerce: intFlag("runs", 1, 100),
        describe: "runs per strategy: run r searches task instance r (seeds.offset r: its own training and evaluation seeds) in every strategy",
      })
      .option("final-trainings", {
        type: "string",
        default: DEFAULT_FINAL_TRAININGS,
        coerce: intFlag("final-trainings", 1, 64),
        describe: "fresh training seeds of each final score (the final, sparse and human rewards each trained on every one)",
      })
      .option("train-steps", {
        type: "string",
        coerce: intFlag("train-steps", 1, 100_000_000),
        describe: `env steps of every training (the budget's scale): each candidate of every strategy, and the final reward's, sparse and human ones (default ${REWARD_SEARCH_TRAIN_STEPS}; intents: ${INTENTS_DEFAULTS.trainSteps})`,
      }),
    flagOptions(KNOBS),
  )
    .option("parallel", { type: "string", default: 1, coerce: intFlag("parallel", 1, 64), describe: "runs played at once (each a hexa run process)" })
    .option("out", {
      type: "string",
      describe: `the benchmark folder; rerun with the same one to continue (default ${REWARD_SEARCH_OUT}; intents: ${INTENTS_OUT})`,
    });

/** `hexa bench`; its grid is played by `host` (src/family/host.ts). */
export const benchCommand = (host: FamilyHost) =>
  defineCommand({
    command: "bench <suite>",
    describe:
      "benchmarks: reward-search runs the reward-search strategies side by side at equal budgets (F and its paired differences); intents runs P2P's intents and F-backed ones through the p2p strategy",
    builder: benchFlags,
    handler: async (argv) => {
      const out = resolve(argv.out ?? (argv.suite === "intents" ? INTENTS_OUT : REWARD_SEARCH_OUT));
      try {
        if (argv.suite === "intents") {
          const { intentsPlan } = await import("./bench-intents.ts");
          const plan = intentsPlan(argv);
          const { runIntentsBench } = await import("./bench-intents-run.ts");
          return await runIntentsBench(plan, out, host);
        }
        const plan = await benchPlan(argv);
        // The grid's and the report's modules are loaded only here: `hexa bench --help` starts fast.
        const { runBench } = await import("./bench-run.ts");
        await runBench(plan, out, host);
      } catch (e) {
        throw asUserError(e, `check that ${out} is a writable folder with space, then rerun the same command to continue`);
      }
    },
  });

/** The bench the flags ask for, each flag checked before anything is written. */
const benchPlan = async (argv: ArgsOf<typeof benchFlags>): Promise<BenchPlan> => {
  refuseIntentsFlags(argv, "hexa bench reward-search");
  const strategies = list(argv.strategies);
  const bad = strategies.find((s) => !(STRATEGY_NAMES as readonly string[]).includes(s));
  if (bad !== undefined || !strategies.length)
    throw new ConfigError(`--strategies: ${bad === undefined ? "name at least one" : `"${bad}" is not a strategy`}; known: ${STRATEGY_NAMES.join(", ")}`);
  const tasks = list(argv.tasks);
  if (!tasks.length) throw new ConfigError(`--tasks: name at least one reward-search task, e.g. --tasks ${DEFAULT_TASKS.join(",")}`);
  const { getTask } = await import("../tasks/index.ts");
  for (const t of tasks) {
    let humanless = false;
    try {
      humanless = getTask(t).humanReward === null;
    } catch (e) {
      throw e instanceof ConfigError ? new ConfigError(`--tasks: ${e.message}`) : e;
    }
    if (humanless)
      throw new ConfigError(`--tasks: ${t} has no human reward, so its paired difference from it and its normalised score are undefined; leave it out`);
  }
  const { config: search } = configFromFlags(SearchConfig, KNOBS, argv, "hexa bench --help");
  // No --iterations here, so every strategy's budget is rf-agent's: --budget, else the schema's default.
  const budget = searchBudget("rf-agent", search);
  if (budget < MIN_BUDGET)
    throw new ConfigError(
      `--budget: the bench needs at least ${MIN_BUDGET} (got ${budget}): the rounds cell plays an offline episode and at least one round; pass --budget ${MIN_BUDGET} or more`,
    );
  return {
    strategies,
    runs: argv.runs,
    parallel: argv.parallel,
    tasks,
    budget,
    trainSteps: argv["train-steps"] ?? REWARD_SEARCH_TRAIN_STEPS,
    finalTrainings: argv["final-trainings"],
    samples: search.eureka.samples,
    initial: search.rfAgent.initial,
    children: search.rfAgent.children,
    sharedInitial: search.rfAgent.sharedInitial,
  };
};
