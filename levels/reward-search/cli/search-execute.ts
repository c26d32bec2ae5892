import { join } from "node:path";
import { CANDIDATE_SCHEMA_VERSION, fitnessOf, type CandidateRecord, type SearchResult } from "../../../src/search/candidates.ts";
import { runSearch } from "../../../src/search/search.ts";
import { openSearchDir } from "../../../src/search/search-dir.ts";
import { writeFinalScores } from "../../../src/store/final-scores.ts";
import { formatFinalScores } from "../../../src/report/final-scores-text.ts";
import { rewardCodeCheck } from "../search/code-check.ts";
import { trainerEvaluator, type RewardProposer } from "../search/evaluator.ts";
import { budgetText, scoreSearch } from "../search/final-protocol.ts";
import { getTask } from "../tasks/index.ts";
import type { RewardTask } from "../task.ts";
import type { TrainerPool } from "../trainer/pool.ts";
import type { SearchSettings } from "./search-settings.ts";
import { noTreeNote, searchBudget } from "../../../src/search/config.ts";

const candidateLine = (c: CandidateRecord, replayed: boolean) =>
  `#${String(c.index).padStart(3)} ${c.operator.padEnd(10)} ${c.parent === null ? "     " : `of #${String(c.parent).padEnd(2)}`} ` +
  `${c.outcome.kind === "result" ? `F ${c.outcome.fitness.toFixed(2).padStart(8)}${c.outcome.cached ? " (cached)" : ""}` : `✗ ${c.outcome.error}`}` +
  `${c.vSelf === undefined ? "" : `  v_self ${c.vSelf.toFixed(2)}`}${c.repairs ? `  after ${c.repairs.length} fix${c.repairs.length === 1 ? "" : "es"}` : ""}` +
  `${replayed ? "  (from the log)" : ""}\n`;

const f2 = (x: number) => x.toFixed(2);

/**
 * What the final score will train: the best reward, the sparse one and the human one where the task has one (a
 * held-out task has none), on `count` fresh seeds, at which budget.
 */
export const finalPlanText = (count: number, steps: number, scored: number, hasHuman: boolean): string =>
  `final score: the best reward${hasHuman ? ", the sparse and the human one" : " and the sparse one (a held-out task: no hand-written reward)"} on ${count} fresh seed${count === 1 ? "" : "s"} each, ${budgetText(steps, scored)}`;

/** The search in a few lines: the best candidate's final-policy F, its best checkpoint labelled, the budget. */
const formatSearch = (r: SearchResult, task: RewardTask, proposer: string): string => {
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

/** Where a search's work goes: its directory, its proposer and trainer pool, and its output (a replay keeps none). */
export interface SearchIo {
  out: string;
  proposer: RewardProposer;
  pool: Pick<TrainerPool, "train">;
  /** Called once search.json is written or checked (the command records the search's settings then). */
  opened?: () => Promise<void>;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

/**
 * One `hexa search` from its resolved settings: search.json and candidates.jsonl (a resume when they are there),
 * then the final score of the best candidate in final-scores.json. `hexa verify` runs it again through this same
 * function, its proposer and trainings answered from the record.
 */
export const executeSearch = async (s: SearchSettings, io: SearchIo): Promise<void> => {
  const task = getTask(s.task);
  const instance = task.generate(s.seed);
  const budget = searchBudget(s.method, s.search);
  const log = openSearchDir(io.out, {
    schemaVersion: CANDIDATE_SCHEMA_VERSION,
    strategy: s.method,
    task: task.id,
    seed: s.seed,
    budget,
    trainSteps: s.trainSteps,
    proposer: io.proposer.label,
    options: s.options,
  });
  await io.opened?.();
  const note = noTreeNote(s.method, s.search, budget);
  if (note) io.stderr(`${note}\n`);
  const plan = finalPlanText(s.finalTrainings, s.finalSteps, task.training.steps, task.humanReward !== null);
  io.stderr(
    `${s.method} on ${task.id} seed ${s.seed} with ${io.proposer.label}: ${budget} candidates of ${s.trainSteps.toLocaleString("en-US")} env steps; lineage in ${join(io.out, "candidates.jsonl")}\n${plan}\n`,
  );
  const t0 = performance.now();
  const ports = {
    evaluator: trainerEvaluator(io.pool, s.trainSteps),
    log,
    check: rewardCodeCheck(s.rewardSearch.checkTransitions),
    onCandidate: (c: CandidateRecord, replayed: boolean) => io.stderr(candidateLine(c, replayed)),
  };
  const r = await runSearch(s.method, { task, instance, seed: s.seed, proposer: io.proposer, ports }, s.search);
  io.stdout(`${formatSearch(r, task, io.proposer.label)}\n`);
  io.stderr(`${plan}\n`);
  const score = await scoreSearch({
    trainer: io.pool,
    task,
    instance,
    result: r,
    count: s.finalTrainings,
    steps: s.finalSteps,
    trainSteps: s.trainSteps,
    method: s.method,
  });
  writeFinalScores(io.out, [score]);
  io.stdout(`${formatFinalScores([score])}\nfinal scores: ${join(io.out, "final-scores.json")}\nwall time ${((performance.now() - t0) / 1000).toFixed(1)} s\n`);
};
