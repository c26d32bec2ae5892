import { join } from "node:path";
import type { Argv, CommandModule } from "yargs";
import { budgetsOf, RewardSearchConfig } from "../../levels/reward-search/config.ts";
import { getTask } from "../../levels/reward-search/index.ts";
import { CANDIDATE_SCHEMA_VERSION, type CandidateRecord } from "../../levels/reward-search/strategies/candidates.ts";
import { heuristicProposer } from "../../levels/reward-search/strategies/heuristic-proposer.ts";
import { llmProposer } from "../../levels/reward-search/strategies/llm-proposer.ts";
import type { Proposer } from "../../levels/reward-search/strategies/proposer.ts";
import { DEFAULT_BUDGET, formatSearch, openSearchDir, runSearch, STRATEGIES, type Strategy } from "../../levels/reward-search/strategies/search.ts";
import { parseSeed } from "../../levels/interphyre/instance.ts";
import { ConfigError } from "../errors.ts";
import { LlmConfig } from "../llm/config.ts";
import { createTrainerPool } from "../trainer/pool.ts";

const positiveInt = (name: string) => (v: unknown) => {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (!Number.isSafeInteger(n) || n < 1) throw new ConfigError(`--${name} must be a positive integer (got ${JSON.stringify(v)})`);
  return n;
};

const candidateLine = (c: CandidateRecord, replayed: boolean) =>
  `#${String(c.index).padStart(3)} ${c.operator.padEnd(10)} ${c.parent === null ? "     " : `of #${String(c.parent).padEnd(2)}`} ` +
  `${c.outcome.kind === "result" ? `F ${c.outcome.fitness.toFixed(2).padStart(8)}${c.outcome.cached ? " (cached)" : ""}` : `✗ ${c.outcome.error}`}` +
  `${c.vSelf === undefined ? "" : `  v_self ${c.vSelf.toFixed(2)}`}${replayed ? "  (from the log)" : ""}\n`;

/** `hexa search TASK --strategy eureka|rf-agent`: one strategy on one task instance, with an exact candidate budget. */
export const searchCommand: CommandModule = {
  command: "search <task>",
  describe: "search reward functions for one reward-search task with Eureka's greedy evolution or RF-Agent's tree search",
  builder: (y: Argv) =>
    y
      .positional("task", { type: "string", demandOption: true, describe: "a reward-search task (hexa levels list --family reward-search)" })
      .option("strategy", { choices: STRATEGIES, demandOption: true, describe: "eureka (K samples × I iterations) or rf-agent (tree search)" })
      .option("budget", { type: "number", coerce: positiveInt("budget"), describe: "candidates trained in all, exactly (default 16)" })
      .option("seed", { type: "string", default: "0", describe: "task instance seed (also the search's own random seed)" })
      .option("proposer", { choices: ["heuristic", "llm"] as const, default: "heuristic", describe: "heuristic needs no model" })
      .option("train-steps", { type: "number", coerce: positiveInt("train-steps"), describe: "env steps of every candidate's training (default: a quarter of the task's budget)" })
      .option("samples", { type: "number", coerce: positiveInt("samples"), describe: "eureka: K candidates per iteration (default 4)" })
      .option("initial", { type: "number", coerce: positiveInt("initial"), describe: "rf-agent: first designs under the root (default 4)" })
      .option("children", { type: "number", coerce: positiveInt("children"), describe: "rf-agent: children per expansion (default 8)" })
      .option("out", { type: "string", describe: "run directory (search.json, candidates.jsonl); the same directory again resumes (default runs/search/STRATEGY-TASK-sSEED)" })
      .option("trainer-cache", { type: "string", describe: "trainer result cache (default runs/.trainer-cache)" })
      .option("processes", { type: "number", coerce: positiveInt("processes"), describe: "trainer processes at once (default: one per core)" })
      .option("model", { type: "string", describe: "llm: model name" })
      .option("base-url", { type: "string", describe: "llm: OpenAI-compatible endpoint (else OPENAI_BASE_URL)" })
      .option("api-key", { type: "string", describe: "llm: API key (else OPENAI_API_KEY)" })
      .example("$0 search cartpole --strategy rf-agent --budget 16 --train-steps 20000", "RF-Agent's tree search with the heuristic proposer"),
  handler: async (argv) => {
    const task = getTask(String(argv.task));
    const strategy = argv.strategy as Strategy;
    const seed = parseSeed(argv.seed, "--seed");
    const instance = task.generate(seed);
    const rs = RewardSearchConfig.parse({});
    const steps = (argv["train-steps"] as number | undefined) ?? budgetsOf(rs, task.training.steps).train;
    const budget = (argv.budget as number | undefined) ?? DEFAULT_BUDGET[strategy];
    const out = argv.out ? String(argv.out) : join("runs", "search", `${strategy}-${task.id}-s${seed}`);
    let proposer: Proposer;
    if (argv.proposer === "llm") {
      if (!argv.model && !argv["base-url"] && !process.env.OPENAI_BASE_URL && !process.env.OPENAI_API_KEY) {
        throw new ConfigError("--proposer llm needs a model: pass --model and --base-url (or set OPENAI_BASE_URL / OPENAI_API_KEY), or use --proposer heuristic, which needs none");
      }
      const llm = LlmConfig.parse({
        actor: {
          ...(argv.model ? { model: argv.model } : {}),
          ...(argv["base-url"] ? { baseURL: argv["base-url"] } : {}),
          ...(argv["api-key"] ? { apiKey: argv["api-key"] } : argv["base-url"] && !process.env.OPENAI_API_KEY ? { apiKey: "none" } : {}),
        },
        auditLog: join(out, "llm-log.jsonl"),
      });
      const { createRoleModel } = await import("../llm/role-model.ts");
      proposer = llmProposer(createRoleModel("actor", llm, { env: process.env, onNotice: (m) => process.stderr.write(`warning: ${m}\n`) }));
    } else {
      proposer = heuristicProposer();
    }
    const options = {
      ...(argv.samples ? { samples: argv.samples as number } : {}),
      ...(argv.initial ? { initial: argv.initial as number } : {}),
      ...(argv.children ? { children: argv.children as number } : {}),
    };
    const log = openSearchDir(out, { schemaVersion: CANDIDATE_SCHEMA_VERSION, strategy, task: task.id, seed, budget, trainSteps: steps, proposer: proposer.label, options });
    const pool = createTrainerPool({
      jobsDir: rs.jobsDir,
      cacheDir: (argv["trainer-cache"] as string | undefined) ?? rs.cacheDir,
      ...(argv.processes ? { size: argv.processes as number } : {}),
      startTimeoutMs: rs.trainer.startTimeoutMs,
    });
    process.stderr.write(`${strategy} on ${task.id} seed ${seed} with ${proposer.label}: ${budget} candidates of ${steps.toLocaleString("en-US")} env steps; lineage in ${join(out, "candidates.jsonl")}\n`);
    const t0 = performance.now();
    try {
      const r = await runSearch(
        strategy,
        { task, instance, steps, seed, proposer, budget, ports: { trainer: pool, log, onCandidate: (c, replayed) => process.stderr.write(candidateLine(c, replayed)) } },
        { eureka: options, rfAgent: options },
      );
      process.stdout.write(`${formatSearch(r, task, proposer.label)}\nwall time ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
    } finally {
      await pool.close();
    }
  },
};
