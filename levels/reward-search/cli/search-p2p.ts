import { join, resolve } from "node:path";
import { CANDIDATE_SCHEMA_VERSION, type SearchHeader } from "../../../src/search/candidates.ts";
import { searchBudget } from "../../../src/search/config.ts";
import { runP2p, type P2pResult, type P2pStop } from "../../../src/search/p2p.ts";
import { outstandingCorrections, readCorrections } from "../../../src/search/p2p-corrections.ts";
import { terminalText } from "../../../src/util/terminal-text.ts";
import { p2pDirLog, type IterationRecord, type PlanRecord, type TrainingRecord } from "../../../src/search/p2p-log.ts";
import type { Reviser } from "../../../src/search/p2p-ports.ts";
import { openSearchDir } from "../../../src/search/search-dir.ts";
import { p2pTrainer, ppoHpSpace } from "../search/p2p-trainer.ts";
import { fitnessCheckpointJudge } from "../search/p2p-fitness-judge.ts";
import { getTask } from "../tasks/index.ts";
import { InvariantError } from "../../../src/errors.ts";
import { intentTask, intentSeeds, prepareIntent } from "../search/p2p-intent.ts";
import { intentCheckpointJudge, type IntentModels } from "../search/p2p-intent-judge.ts";
import { writeFinalScores } from "../../../src/store/final-scores.ts";
import { formatFinalScores } from "../../../src/report/final-scores-text.ts";
import { finalScoreOf } from "../search/final-protocol.ts";
import { p2pFinalReward } from "../search/p2p-run.ts";
import type { RewardTask, TaskInstance } from "../task.ts";
import type { Elicit } from "./search-elicit.ts";
import type { TrainerPool } from "../trainer/pool.ts";
import type { SearchSettings } from "./search-settings.ts";
import type { BankEvent } from "../../../src/store/bank.ts";

/**
 * `hexa search --strategy p2p` on a task with F (docs/spec/reward-search.md §8.6): the p2p strategy with the
 * fitness judge, the trainer pool and the given reviser, its lineage in the search directory (search.json,
 * plans.jsonl, trainings/, iterations.jsonl, bank-events.jsonl, corrections.jsonl; the same directory again, or
 * --resume, goes on with it), then the final score of the best iteration's code (final-scores.json). It says when a
 * correction lets a finished search go on, how each plan answered the corrections, and which remain.
 */

export interface P2pIo {
  out: string;
  /** The judges' models of an intent search (settings.intent); none for a task with F. */
  intent?: IntentModels;
  reviser: Reviser<RewardTask, TaskInstance>;
  /** Lessons of earlier p2p searches entered at the start (src/search/p2p-carried.ts); a resume finds them logged. */
  carried?: readonly BankEvent[];
  /** At a terminal: the user accepts the vision judge's proposed criteria (search-elicit.ts). */
  elicit?: Elicit;
  /** Called with the criteria the user accepted, before any training, to record them as --criteria's are. */
  accepted?: (criteria: string[]) => void;
  pool: Pick<TrainerPool, "train">;
  opened?: () => Promise<void>;
  stdout: (text: string) => void;
  stderr: (text: string) => void;
}

const f2 = (x: number) => x.toFixed(2);

const trainingLine = (t: TrainingRecord, replayed: boolean) =>
  `it ${t.iteration} config ${t.config} seed ${t.seed}: ${t.outcome.kind === "result" ? `score ${f2(t.score)} (${t.judged.map((j) => f2(j.score)).join(" → ")})` : `✗ ${t.outcome.error}`}${replayed ? "  (from the log)" : ""}\n`;

const iterationLine = (r: IterationRecord, p: PlanRecord) =>
  `iteration ${r.iteration}${r.parent === null ? "" : ` (based on ${r.parent})`}: best config ${r.best} mean ${f2(r.score)} over seeds${r.newBest ? ", a new best" : ""}; configs ${r.configs.map((c) => `${c.directive} ${f2(c.mean)}±${f2(c.std)}`).join(", ")}${p.revision.plateau ? "; structural rewrite after a plateau" : ""}\n`;

const STOP_WORDS = { passed: "passed", iterations: "reached its iteration cap", budget: "spent its training budget" } as const;

const correctedLine = (stop: P2pStop, iteration: number, indices: readonly number[]) =>
  `p2p: the search had ${STOP_WORDS[stop]}; it goes on to iteration ${iteration} only because correction${indices.length > 1 ? "s" : ""} ${indices.join(", ")} ${indices.length > 1 ? "were" : "was"} added since, for that iteration's reviser to address\n`;

const addressedText = (p: PlanRecord) =>
  (p.revision.corrections ?? []).map((a) => `correction ${a.correction} ${a.addressed ? "addressed" : "not addressed"}: ${a.how}`).join("; ");

/** The corrections no plan addressed yet, said after the search: the next iteration's reviser is asked again, if the budget allows one. */
const outstandingNote = (out: string, r: P2pResult): string => {
  const left = outstandingCorrections(readCorrections(out), r.plans, r.plans.length);
  if (left.length === 0) return "";
  const why = r.stop === "budget" ? "the training budget is spent, so no iteration can" : "the next iteration's reviser is asked again";
  return `note: correction${left.length > 1 ? "s" : ""} ${left.map((c) => c.index).join(", ")} not addressed yet; ${why}\n`;
};

const summary = (r: P2pResult, label: string): string => {
  const stop = { passed: `passed (score ≥ ${r.passAt})`, iterations: "the iteration cap", budget: "the training budget" }[r.stop];
  const best = r.best
    ? `best: iteration ${r.best.iteration} config ${r.best.config}, score ${f2(r.best.score)} (mean over seeds; ${label}${r.best.judgeVersion === undefined ? "" : `; among the iterations scored by code judge v${r.best.judgeVersion}`}); HPs ${JSON.stringify(r.best.hp)}`
    : "no iteration finished";
  return `p2p: ${r.iterations.length} iterations, ${r.trainings} trainings (${r.trained} trained now); stopped at ${stop}\n${best}`;
};

/** The judge of the search: the fitness judge on a task with F; for an intent, its judges, prepared before any training. */
const judgeOf = async (s: SearchSettings, io: P2pIo, task: RewardTask, instance: TaskInstance) => {
  if (!s.intent) return { judge: fitnessCheckpointJudge(), notes: [] };
  if (!io.intent) throw new InvariantError("p2p: an intent search was given no judge models");
  const j = {
    intent: s.intent.text,
    passAt: s.intent.passAt,
    seeds: intentSeeds(instance, s.intent.episodes),
    ...(s.intent.maxSteps === undefined ? {} : { maxSteps: s.intent.maxSteps }),
    dir: resolve(io.out),
  };
  const choice = { user: s.intent.criteria, elicited: s.intent.elicited, elicit: io.elicit };
  const { notes, accepted } = await prepareIntent(task, instance, j, io.intent, choice);
  if (accepted) io.accepted?.(accepted);
  return { judge: intentCheckpointJudge(task, j, io.intent, (n) => io.stderr(`${n}\n`)), notes };
};

export const executeP2p = async (s: SearchSettings, io: P2pIo): Promise<P2pResult> => {
  const envTask = getTask(s.task);
  const task = s.intent ? intentTask(envTask, s.intent.text) : envTask;
  const instance = task.generate(s.seed);
  const budget = searchBudget("p2p", s.search);
  const header: SearchHeader = {
    schemaVersion: CANDIDATE_SCHEMA_VERSION,
    strategy: "p2p",
    task: task.id,
    seed: s.seed,
    budget,
    trainSteps: s.trainSteps,
    proposer: io.reviser.label,
    options: s.intent ? { ...s.options, intent: s.intent.text, passAt: s.intent.passAt } : s.options,
  };
  openSearchDir(io.out, header);
  await io.opened?.();
  const { judge, notes } = await judgeOf(s, io, envTask, instance);
  for (const n of notes) io.stderr(`${n}\n`);
  io.stderr(
    `p2p on ${task.id} seed ${s.seed} with ${io.reviser.label}: ${budget} trainings of ${s.trainSteps.toLocaleString("en-US")} env steps, ${s.search.p2p.configs} configs × ${s.search.p2p.trainSeeds} seeds per iteration; judged by the ${judge.label}; lineage in ${join(io.out, "iterations.jsonl")}\n`,
  );
  const r = await runP2p({
    task,
    instance,
    seed: s.seed,
    source: task.id,
    ...(io.carried?.length ? { carried: io.carried } : {}),
    reviser: io.reviser,
    trainer: p2pTrainer(io.pool, s.trainSteps, s.intent !== undefined),
    judge,
    space: ppoHpSpace(task),
    log: p2pDirLog(io.out),
    budget,
    config: s.search.p2p,
    onTraining: (t, replayed) => io.stderr(trainingLine(t, replayed)),
    onIteration: (it, p) => io.stderr(terminalText(`${iterationLine(it, p)}${p.revision.corrections ? `  ${addressedText(p)}\n` : ""}`)),
    onCorrected: (stop, it, indices) => io.stderr(correctedLine(stop, it, indices)),
  });
  io.stdout(`${summary(r, judge.label)}\n`);
  io.stderr(outstandingNote(io.out, r));
  if (s.intent) {
    // No F to score; the empty final-scores.json marks the search finished (hexa verify replays a finished search).
    writeFinalScores(io.out, []);
    io.stdout("no final score: a task from words has no F; the judged score above is the search's result\n");
    return r;
  }
  // The final score of §7: the best iteration's code on fresh seeds, with that iteration's best HPs (p2p searches both).
  const found = p2pFinalReward(io.out, instance, s.search.p2p.trainSeeds);
  const score = await finalScoreOf({
    trainer: io.pool,
    task,
    instance,
    ...found,
    envSteps: found.spent * s.trainSteps,
    strategy: "p2p",
    count: s.finalTrainings,
    steps: s.finalSteps,
  });
  writeFinalScores(io.out, [score]);
  io.stdout(`${formatFinalScores([score])}\nfinal scores: ${join(io.out, "final-scores.json")}\n`);
  return r;
};
