import { join } from "node:path";
import { budgetsOf, RewardSearchConfig } from "../config.ts";
import { getTask } from "../tasks/index.ts";
import type { RewardTask } from "../task.ts";
import { CANDIDATE_SCHEMA_VERSION, fitnessOf, type CandidateRecord, type SearchResult } from "../../../src/search/candidates.ts";
import { SearchConfig, searchBudget } from "../../../src/search/config.ts";
import { configFromFlags, type SchemaFlag } from "../../../src/cli-kit/schema-flags.ts";
import { runSearch } from "../../../src/search/search.ts";
import { openSearchDir } from "../../../src/search/search-dir.ts";
import { heuristicProposer } from "../proposers/heuristic-proposer.ts";
import { llmProposer } from "../proposers/llm-proposer.ts";
import { rewardCodeCheck } from "../search/code-check.ts";
import { trainerEvaluator, type RewardProposer } from "../search/evaluator.ts";
import { parseSeed } from "../../../src/family/seed.ts";
import { ConfigError } from "../../../src/errors.ts";
import { LlmConfig } from "../../../src/llm/config.ts";
import { localTrainerPool } from "../trainer/local-pool.ts";
import type { TrainerConfig } from "../trainer/trainer-config.ts";
import { budgetText, scoreSearch } from "../search/final-protocol.ts";
import { writeFinalScores } from "../../../src/store/final-scores.ts";
import { formatFinalScores } from "../../../src/report/final-scores-text.ts";
import type { SearchArgs } from "./search.ts";

const HELP = "hexa search --help";

/** The flags made from schemas (levels/reward-search/cli/search.ts), read back into config slices here. */
interface SchemaFlagSets {
  search: SchemaFlag[];
  trainerSlice: ReturnType<typeof TrainerConfig.pick<{ wallMs: true }>>;
  trainer: SchemaFlag[];
}

const candidateLine = (c: CandidateRecord, replayed: boolean) =>
  `#${String(c.index).padStart(3)} ${c.operator.padEnd(10)} ${c.parent === null ? "     " : `of #${String(c.parent).padEnd(2)}`} ` +
  `${c.outcome.kind === "result" ? `F ${c.outcome.fitness.toFixed(2).padStart(8)}${c.outcome.cached ? " (cached)" : ""}` : `✗ ${c.outcome.error}`}` +
  `${c.vSelf === undefined ? "" : `  v_self ${c.vSelf.toFixed(2)}`}${c.repairs ? `  after ${c.repairs.length} fix${c.repairs.length === 1 ? "" : "es"}` : ""}` +
  `${replayed ? "  (from the log)" : ""}\n`;

const f2 = (x: number) => x.toFixed(2);

/** What the final score will train: the best reward, the sparse and the human one on `count` fresh seeds, at which budget. */
export const finalPlanText = (count: number, steps: number, scored: number): string =>
  `final score: the best reward, the sparse and the human one on ${count} fresh seed${count === 1 ? "" : "s"} each, ${budgetText(steps, scored)}`;

/** The search in a few lines: the best candidate's final-policy F, its best checkpoint labelled, the budget. */
export const formatSearch = (r: SearchResult, task: RewardTask, proposer: string): string => {
  const ok = r.candidates.filter((c) => fitnessOf(c) !== null).length;
  const lines = [
    `${r.strategy} on ${task.id} with ${proposer}: ${r.candidates.length}/${r.budget} candidates trained (${ok} ok, ${r.candidates.length - ok} failed; ${r.replayed} replayed from the log, ${r.evaluations} trained now)`,
  ];
  const b = r.best;
  if (b?.outcome.kind !== "result") {
    lines.push("no candidate trained successfully");
    return lines.join("\n");
  }
  lines.push(
    `best: candidate #${b.index} (${b.operator}${b.parent === null ? "" : ` of #${b.parent}`}), F of the final policy ${f2(b.outcome.fitness)} on the selection seeds [${b.outcome.perSeed.map((p) => p.seed).join(", ")}] it was chosen on (solved at ≥ ${task.fitness.solved})`,
    `best checkpoint during its training (labelled, not the score): F ${f2(b.outcome.bestCheckpoint.fitness)} at step ${b.outcome.bestCheckpoint.step}`,
    `thought: ${b.thought}`,
  );
  return lines.join("\n");
};

/** `hexa search` (levels/reward-search/cli/search.ts): one method on one task instance, then the final score of its best reward. */
export const searchTask = async (argv: SearchArgs, flags: SchemaFlagSets): Promise<void> => {
  const task = getTask(argv.task);
  const method = argv.method;
  const seed = parseSeed(argv.seed, "--seed");
  const instance = task.generate(seed);
  const { config: search, given } = configFromFlags(SearchConfig, flags.search, argv, HELP);
  const { config: trainerFlags } = configFromFlags(flags.trainerSlice, flags.trainer, argv, HELP);
  const rs = RewardSearchConfig.parse({
    trainer: { ...trainerFlags, ...(argv.processes ? { processes: argv.processes } : {}) },
    ...(argv["trainer-cache"] ? { cacheDir: argv["trainer-cache"] } : {}),
  });
  const steps = argv["train-steps"] ?? budgetsOf(rs, task.training.steps).train;
  const budget = searchBudget(method, search);
  const out = argv.out ? argv.out : join("runs", "search", `${method}-${task.id}-s${seed}`);
  let proposer: RewardProposer;
  if (argv.proposer === "llm") {
    if (!argv.model && !argv["base-url"] && !process.env.OPENAI_BASE_URL && !process.env.OPENAI_API_KEY) {
      throw new ConfigError(
        "--proposer llm needs a model: pass --model and --base-url (or set OPENAI_BASE_URL / OPENAI_API_KEY), or use --proposer heuristic, which needs none",
      );
    }
    const llm = LlmConfig.parse({
      actor: {
        ...(argv.model ? { model: argv.model } : {}),
        ...(argv["base-url"] ? { baseURL: argv["base-url"] } : {}),
        ...(argv["api-key"] ? { apiKey: argv["api-key"] } : argv["base-url"] && !process.env.OPENAI_API_KEY ? { apiKey: "none" } : {}),
      },
      auditLog: join(out, "llm-log.jsonl"),
    });
    const { createRoleModel } = await import("../../../src/llm/role-model.ts");
    proposer = llmProposer(createRoleModel("actor", llm, { env: process.env, onNotice: (m) => process.stderr.write(`warning: ${m}\n`) }));
  } else {
    proposer = heuristicProposer();
  }
  // search.json records the knobs given on the command line (the budget has its own field).
  const options = Object.fromEntries(Object.entries(given).filter(([k]) => k !== "budget"));
  const log = openSearchDir(out, {
    schemaVersion: CANDIDATE_SCHEMA_VERSION,
    strategy: method,
    task: task.id,
    seed,
    budget,
    trainSteps: steps,
    proposer: proposer.label,
    options,
  });
  const pool = localTrainerPool(rs);
  const count = argv["final-trainings"] ?? rs.finalTrainings;
  const finalSteps = argv["final-steps"] ?? budgetsOf(rs, task.training.steps).finish;
  process.stderr.write(
    `${method} on ${task.id} seed ${seed} with ${proposer.label}: ${budget} candidates of ${steps.toLocaleString("en-US")} env steps; lineage in ${join(out, "candidates.jsonl")}\n${finalPlanText(count, finalSteps, task.training.steps)}\n`,
  );
  const t0 = performance.now();
  try {
    const ports = {
      evaluator: trainerEvaluator(pool, steps),
      log,
      check: rewardCodeCheck(rs.checkTransitions),
      onCandidate: (c: CandidateRecord, replayed: boolean) => process.stderr.write(candidateLine(c, replayed)),
    };
    const r = await runSearch(method, { task, instance, seed, proposer, ports }, search);
    process.stdout.write(`${formatSearch(r, task, proposer.label)}\n`);
    process.stderr.write(`${finalPlanText(count, finalSteps, task.training.steps)}\n`);
    const score = await scoreSearch({ trainer: pool, task, instance, result: r, count, steps: finalSteps, method });
    writeFinalScores(out, [score]);
    process.stdout.write(
      `${formatFinalScores([score])}\nfinal scores: ${join(out, "final-scores.json")}\nwall time ${((performance.now() - t0) / 1000).toFixed(1)} s\n`,
    );
  } finally {
    await pool.close();
  }
};
