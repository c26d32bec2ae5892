import { join } from "node:path";
import { CHARS_PER_TOKEN } from "../../../src/llm/budget.ts";
import { readJsonl } from "../../../src/store/jsonl.ts";
import type { FamilySearch, FinalScoreRequest } from "../../../src/family/capabilities.ts";
import type { RunConfig } from "../../../src/loop/run-config.ts";
import type { FinalScore } from "../../../src/store/final-scores.ts";
import type { EpisodeRecord } from "../../../src/store/run-records.ts";
import type { TrainerPool } from "../trainer/pool.ts";
import { budgetsOf, type RewardSearchConfig } from "../config.ts";
import { getTask } from "../tasks/index.ts";
import { finalScoreOf, type FoundHp, selectionOf, type SelectionSeeds } from "./final-protocol.ts";
import type { RewardTask } from "../task.ts";
import { settleAll } from "../../../src/search/batch.ts";
import { bestOf, CANDIDATE_SCHEMA_VERSION, CandidateRecord, type SearchHeader } from "../../../src/search/candidates.ts";
import { headerOptions, noTreeNote, searchBudget, type SearchMethod } from "../../../src/search/config.ts";
import { runSearch } from "../../../src/search/search.ts";
import { jsonlCandidateLog, openSearchDir } from "../../../src/search/search-dir.ts";
import { heuristicProposer } from "../proposers/heuristic-proposer.ts";
import { CODE_TIPS, REFLECTION_TIPS } from "../reward-tips.ts";
import { rewardCodeCheck } from "./code-check.ts";
import { trainerEvaluator } from "./evaluator.ts";
import { p2pFinalReward, p2pSearchOfRun } from "./p2p-run.ts";

/**
 * The run's `method` for reward search: eureka and rf-agent (src/search, on the trainer evaluator and the
 * heuristic or LLM proposer) search every task of the config in the run directory (`search/<task>/search.json`
 * + `candidates.jsonl`, resumable), on the task's first stream seed, with the exact budget; afterwards every
 * method — rounds included — is scored the same way: the final reward (the search's best candidate; in rounds,
 * the run's best committed reward) trained at the scored budget on that instance by the final scoring protocol
 * (final-protocol.ts): on fresh training seeds that no search training used, scored on fresh evaluation seeds,
 * normalised per seed by the sparse and the human reward trained identically.
 */

/** The instance a search works on and the final scoring evaluates on: the first seed of the run's stream. */
const searchSeedOf = (config: RunConfig): number => config.seeds.offset;

const searchDirOf = (runDir: string, task: string): string => join(runDir, "search", task);

/**
 * The model calls of one candidate before any search of the model was recorded (the forecast's fallback): a
 * proposal's prompt is the task text plus the rewards it is shown (Eureka's refinement one, RF-Agent's
 * operators about two on average: crossover and path show 2–4), each about SHOWN_CHARS with its thought and
 * feedback; RF-Agent adds the self-evaluation of the code and, after a successful training, the thought
 * alignment. A retry after an unusable answer is not foreseen.
 */
const SHOWN_CHARS = 3000;
const CODE_CHARS = 1200;
const PROPOSAL_OUTPUT = 600;
const SELF_EVAL_OUTPUT = 20;
const ALIGN_OUTPUT = 150;
/** An operator's instruction, the code tips and the feedback tips every proposal carries (proposers/proposer-prompts.ts). */
const INSTRUCTION_CHARS = 600 + CODE_TIPS.length + REFLECTION_TIPS.length;

const perCandidateCalls = (strategy: SearchMethod, task: RewardTask): { calls: number; input: number; output: number } => {
  const tokens = (chars: number) => Math.ceil(chars / CHARS_PER_TOKEN);
  const prompt = task.description.length + INSTRUCTION_CHARS;
  const proposal = tokens(prompt + (strategy === "eureka" ? 1 : 2) * SHOWN_CHARS);
  if (strategy === "eureka") return { calls: 1, input: proposal, output: PROPOSAL_OUTPUT };
  return { calls: 3, input: proposal + 2 * tokens(prompt + CODE_CHARS), output: PROPOSAL_OUTPUT + SELF_EVAL_OUTPUT + ALIGN_OUTPUT };
};

/** Candidates of a level's search still to train: the budget less the indices its candidates.jsonl holds (read, never repaired). */
const candidatesLeft = (dir: string | undefined, level: string, budget: number): number => {
  if (dir === undefined) return budget;
  const done = new Set(
    readJsonl(join(searchDirOf(dir, level), "candidates.jsonl"), CandidateRecord, { repair: false })
      .map((r) => r.index)
      .filter((i) => i < budget),
  );
  return budget - done.size;
};

export const searchOfRun = (config: RunConfig, c: RewardSearchConfig, pool: TrainerPool): FamilySearch | undefined => {
  if (config.method === "rounds") return undefined;
  if (config.method === "p2p") return p2pSearchOfRun(config, c, pool);
  const strategy: SearchMethod = config.method;
  const budget = searchBudget(strategy, config.search);
  const seed = searchSeedOf(config);
  const usesModel = config.agent !== "heuristic";
  return {
    name: strategy,
    label: `${strategy}: ${budget} candidates per task`,
    calls: (dir) => {
      const per = config.levels.map((level) => ({
        left: usesModel ? candidatesLeft(dir, level, budget) : 0,
        work: perCandidateCalls(strategy, getTask(level)),
      }));
      const candidates = per.reduce((n, p) => n + p.left, 0);
      // The levels' mean, weighted by what each has left (equal when none has: a new run).
      const weight = (p: (typeof per)[number]) => (candidates ? p.left / candidates : 1 / per.length);
      const mean = (f: (w: (typeof per)[number]["work"]) => number) => per.reduce((x, p) => x + weight(p) * f(p.work), 0);
      return {
        candidates,
        perCandidate: { calls: per[0]?.work.calls ?? 0, input: mean((w) => w.input), output: mean((w) => w.output) },
        basis:
          strategy === "eureka"
            ? `one proposal per candidate, its prompt the task and the reward it refines (~${SHOWN_CHARS.toLocaleString("en")} characters with its feedback), ~${PROPOSAL_OUTPUT} tokens out`
            : `a proposal (the task and ~2 rewards shown), a self-evaluation and a thought alignment per candidate, ~${PROPOSAL_OUTPUT + SELF_EVAL_OUTPUT + ALIGN_OUTPUT} tokens out`,
        ...(strategy === "rf-agent" && config.search.rfAgent.debugTries > 0
          ? {
              uncounted: `up to ${config.search.rfAgent.debugTries} re-debug call(s) for each candidate whose code fails its check (search.rfAgent.debugTries); the budget cap counts them`,
            }
          : {}),
      };
    },
    run: async ({ dir, actorModel, onCall, log, signal }) => {
      const note = noTreeNote(strategy, config.search, budget);
      if (note) log(note);
      // The model layer loads only for a search with a model.
      const llm = usesModel && actorModel ? await import("../proposers/llm-proposer.ts") : undefined;
      const proposerOf = (level: string) => {
        if (!llm || !actorModel) return heuristicProposer();
        const model = actorModel;
        // Each call metered by the candidate it is for: usage.jsonl's lines of phase "search".
        return llm.llmProposer(
          model,
          onCall
            ? { modelFor: (candidate) => model.listening((turn) => onCall({ level, seed, ...(candidate === undefined ? {} : { candidate }) }, turn)) }
            : {},
        );
      };
      // The tasks search at once (the pool bounds the trainings in flight); a task that stops (the spend cap)
      // lets the others end their trainings in flight before the run stops.
      await settleAll(
        config.levels.map(async (level) => {
          signal?.throwIfAborted();
          const task = getTask(level);
          const proposer = proposerOf(level);
          const steps = budgetsOf(c, task.training.steps).train;
          const where = searchDirOf(dir, level);
          const options = { ...headerOptions(strategy, config.search), searchSeed: config.seed };
          const header: SearchHeader = {
            schemaVersion: CANDIDATE_SCHEMA_VERSION,
            strategy,
            task: task.id,
            seed,
            budget,
            trainSteps: steps,
            proposer: proposer.label,
            options,
          };
          const ports = { evaluator: trainerEvaluator(pool, steps), log: openSearchDir(where, header), check: rewardCodeCheck(c.checkTransitions) };
          const r = await runSearch(strategy, { task, instance: task.generate(seed), seed: config.seed, proposer, ports }, config.search);
          const best = r.best?.outcome.kind === "result" ? `best #${r.best.index} F ${r.best.outcome.fitness.toFixed(2)}` : "no candidate trained successfully";
          log(`${level}: ${strategy} ${r.candidates.length}/${budget} candidates (${r.replayed} from the log), ${r.evaluations} trained now, ${best}`);
        }),
      );
    },
  };
};

/** The trainings an episode sent, as its steps recorded them (TrajectoryStep.spent). */
export const trainingsOf = (steps: readonly { spent?: number }[]): number => steps.reduce((n, s) => n + (s.spent ?? 0), 0);

/**
 * A rounds run's share of `search.budget` B for one episode. The task's episodes play in phases
 * (`phases`: the offline seeds, then each round's); an episode of phase g gets an even part of what the phases
 * before it left unspent, split over every episode still to play (the first ones one more):
 * ⌊L / E⌋ + (i < L mod E), with L = B − spent before phase g, E = the episodes of phases g…end and i the episode's
 * index among them. An episode that commits early passes its rest on; the last phase's shares sum to exactly
 * what is left, so the run trains exactly B when its last round spends its shares (the heuristic always does).
 * Only earlier phases count, so episodes of one phase may play at once and a resume gives each the same share.
 * Undefined for a seed the rounds do not play (held-out evaluation).
 */
export const trainingShare = (budget: number, phases: readonly (readonly number[])[], seed: number, spentBefore: number): number | undefined => {
  const g = phases.findIndex((p) => p.includes(seed));
  if (g < 0) return undefined;
  const left = Math.max(0, budget - spentBefore);
  const ahead = phases.slice(g).reduce((n, p) => n + p.length, 0);
  const i = phases[g]!.indexOf(seed);
  return Math.floor(left / ahead) + (i < left % ahead ? 1 : 0);
};

/** The final reward of a task in a finished run, and the trainings the run spent on the task. */
const finalRewardOf = (
  req: FinalScoreRequest,
  level: string,
  played: (e: EpisodeRecord) => boolean,
): { code: string | null; source: string; spent: number; selection: SelectionSeeds; hp?: FoundHp } => {
  const method = req.config.method;
  const task = getTask(level);
  const own = task.generate(searchSeedOf(req.config));
  if (method === "p2p") return p2pFinalReward(searchDirOf(req.dir, level), own, req.config.search.p2p.trainSeeds);
  if (method !== "rounds") {
    const candidates = jsonlCandidateLog(searchDirOf(req.dir, level)).read();
    const best = bestOf(candidates);
    const selection = selectionOf([own, ...candidates]);
    return { code: best?.code ?? null, source: best ? `candidate #${best.index} of ${method}` : "none", spent: candidates.length, selection };
  }
  const ran = req.episodes.filter(played);
  const selection = selectionOf([own, ...ran.map((e) => task.generate(e.seed))]);
  const spent = ran.reduce((n, e) => n + trainingsOf(e.trajectory.steps), 0);
  let best: EpisodeRecord | undefined;
  for (const e of ran) {
    const a = e.trajectory.action as { code?: unknown } | null;
    if (typeof a?.code !== "string" || e.trajectory.score === undefined) continue;
    if (!best || e.trajectory.score > best.trajectory.score!) best = e;
  }
  return { code: best ? (best.trajectory.action as { code: string }).code : null, source: best ? `episode ${best.id}` : "none", spent, selection };
};

/** Whether a run has final scores: every search, and a rounds run with a budget. */
export const finalScoresDue = (config: RunConfig): boolean => !(config.method === "rounds" && config.search.budget === undefined);

/** The final scores of a run (see the file's comment); undefined for a rounds run without a budget. */
export const finalScoresOfRun = async (
  req: FinalScoreRequest,
  c: RewardSearchConfig,
  pool: TrainerPool,
  /** Whether a record is one of the level's episodes the rounds played (not held-out, not read from a file). */
  playedOf: (level: string) => (e: EpisodeRecord) => boolean,
): Promise<FinalScore[] | undefined> => {
  if (!finalScoresDue(req.config)) return undefined;
  const seed = searchSeedOf(req.config);
  return Promise.all(
    req.config.levels.map(async (level): Promise<FinalScore> => {
      const task = getTask(level);
      const instance = task.generate(seed);
      const budgets = budgetsOf(c, task.training.steps);
      const found = finalRewardOf(req, level, playedOf(level));
      // Every training of a search, and of a rounds run under its share (tools/session.ts `stepsOf`), is the quick budget.
      const envSteps = found.spent * budgets.train;
      return finalScoreOf({ trainer: pool, task, instance, ...found, envSteps, strategy: req.config.method, count: c.finalTrainings, steps: budgets.finish });
    }),
  );
};
