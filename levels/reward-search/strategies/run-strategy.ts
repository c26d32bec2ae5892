import { join } from "node:path";
import type { ChatModel } from "../../../src/llm/chat-model.ts";
import type { FamilySearch, FinalScoreRequest } from "../../../src/loop/family.ts";
import type { RunConfig } from "../../../src/loop/run-config.ts";
import type { FinalScore } from "../../../src/store/final-scores.ts";
import type { TrainerPool } from "../../../src/trainer/pool.ts";
import { BUDGET_SPENT } from "../../../tools/reward-search/session.ts";
import { budgetsOf, type RewardSearchConfig } from "../config.ts";
import { getTask } from "../index.ts";
import type { RewardTask, TaskInstance } from "../task.ts";
import { bestOf, CANDIDATE_SCHEMA_VERSION, type SearchHeader } from "./candidates.ts";
import { heuristicProposer } from "./heuristic-proposer.ts";
import { llmProposer } from "./llm-proposer.ts";
import { DEFAULT_BUDGET, jsonlCandidateLog, openSearchDir, runSearch, type Strategy } from "./search.ts";

/**
 * `rewardSearch.strategy` in a run (issue 13): eureka and rf-agent search every task of the config in the run
 * directory (`search/<task>/search.json` + `candidates.jsonl`, resumable), on the task's first stream seed, with
 * the exact budget; afterwards every strategy — rounds included — is scored the same way: the final reward (the
 * search's best candidate; in rounds, the run's best committed reward) trained at the scored budget on that
 * instance and evaluated on held-out evaluation seeds that no search training or evaluation used, normalised
 * by the sparse and the human reward trained identically.
 */

/** The instance a search works on and the final scoring evaluates on: the first seed of the run's stream. */
const searchSeedOf = (config: RunConfig): number => config.seeds.offset;

const searchDirOf = (runDir: string, task: string): string => join(runDir, "search", task);

const searchOptions = (c: RewardSearchConfig, strategy: Strategy): Record<string, number> =>
  strategy === "eureka" ? { samples: c.eureka.samples } : { initial: c.rfAgent.initial, children: c.rfAgent.children };

export const searchOfRun = (config: RunConfig, c: RewardSearchConfig, pool: TrainerPool): FamilySearch | undefined => {
  if (c.strategy === "rounds") return undefined;
  const strategy: Strategy = c.strategy;
  const budget = c.budget ?? DEFAULT_BUDGET[strategy];
  return {
    label: `${strategy}: ${budget} candidates per task`,
    run: async ({ dir, actorModel, log, signal }: { dir: string; actorModel?: ChatModel; log: (line: string) => void; signal?: AbortSignal }) => {
      const proposer = config.agent === "heuristic" || !actorModel ? heuristicProposer() : llmProposer(actorModel);
      const seed = searchSeedOf(config);
      // The tasks search at once: the pool bounds the trainings in flight.
      await Promise.all(
        config.levels.map(async (level) => {
          signal?.throwIfAborted();
          const task = getTask(level);
          const steps = budgetsOf(c, task.training.steps).train;
          const options = searchOptions(c, strategy);
          const where = searchDirOf(dir, level);
          const header: SearchHeader = { schemaVersion: CANDIDATE_SCHEMA_VERSION, strategy, task: task.id, seed, budget, trainSteps: steps, proposer: proposer.label, options: { ...options, searchSeed: config.seed } };
          const r = await runSearch(
            strategy,
            { task, instance: task.generate(seed), steps, seed: config.seed, proposer, budget, ports: { trainer: pool, log: openSearchDir(where, header) } },
            { eureka: { samples: c.eureka.samples }, rfAgent: { initial: c.rfAgent.initial, children: c.rfAgent.children } },
          );
          const best = r.best?.outcome.kind === "result" ? `best #${r.best.index} F ${r.best.outcome.fitness.toFixed(2)}` : "no candidate trained successfully";
          log(`${level}: ${strategy} ${r.candidates.length}/${budget} candidates (${r.replayed} from the log), ${best}`);
        }),
      );
    },
  };
};

/**
 * A rounds run's share of `rewardSearch.budget` for one episode: the budget split evenly over the task's
 * offline and stream episodes in the order they play (the first B mod E get one more), so the run sends at
 * most B trainings of the task, and a resumed run gives every episode the same share. Held-out episodes
 * (hexa eval) are not part of the search and have no share.
 */
export const trainingShare = (budget: number, order: readonly number[], seed: number): number | undefined => {
  const i = order.indexOf(seed);
  if (i < 0) return undefined;
  return Math.floor(budget / order.length) + (i < budget % order.length ? 1 : 0);
};

/** The held-out evaluation seeds of an instance: three past every seed its search trainings used (train and evaluation). */
export const heldOutEvalSeeds = (instance: TaskInstance): number[] => {
  const top = Math.max(instance.trainSeed, ...instance.evalSeeds);
  return [top + 1, top + 2, top + 3];
};

/** The final reward of a task in a finished run, and the trainings the run spent on the task. */
const finalRewardOf = (req: FinalScoreRequest, c: RewardSearchConfig, level: string): { code: string | null; source: string; spent: number } => {
  if (c.strategy !== "rounds") {
    const candidates = jsonlCandidateLog(searchDirOf(req.dir, level)).read();
    const best = bestOf(candidates);
    return { code: best?.code ?? null, source: best ? `candidate #${best.index} of ${c.strategy}` : "none", spent: candidates.length };
  }
  const played = req.episodes.filter((e) => e.level === level && e.phase !== "eval");
  const spent = played.reduce((n, e) => n + e.trajectory.steps.filter((s) => (s.tool === "train_policy" || s.tool === "finish") && !s.observation.includes(BUDGET_SPENT)).length, 0);
  let best: (typeof played)[number] | undefined;
  for (const e of played) {
    const a = e.trajectory.action as { code?: unknown } | null;
    if (typeof a?.code !== "string" || e.trajectory.score === undefined) continue;
    if (!best || e.trajectory.score > best.trajectory.score!) best = e;
  }
  return { code: best ? (best.trajectory.action as { code: string }).code : null, source: best ? `episode ${best.id}` : "none", spent };
};

const trainF = async (pool: TrainerPool, task: RewardTask, instance: TaskInstance, evalSeeds: number[], code: string, steps: number, label: string) => {
  const o = await pool.train({ task: task.id, instance, reward: code, steps, seed: instance.trainSeed, evalSeeds, ppo: task.training.ppo }, { label: `final-${task.id}-s${instance.seed}-${label}` });
  return o.kind === "result" ? { fitness: o.result.final.fitness, bestCheckpoint: o.result.bestCheckpoint } : { error: o.error.message };
};

/** The final scores of a run (see the file's comment); undefined for a rounds run without a budget. */
export const finalScoresOfRun = async (req: FinalScoreRequest, c: RewardSearchConfig, pool: TrainerPool): Promise<FinalScore[] | undefined> => {
  if (c.strategy === "rounds" && c.budget === undefined) return undefined;
  const seed = searchSeedOf(req.config);
  return Promise.all(
    req.config.levels.map(async (level): Promise<FinalScore> => {
      const task = getTask(level);
      const instance = task.generate(seed);
      const evalSeeds = heldOutEvalSeeds(instance);
      const steps = budgetsOf(c, task.training.steps).finish;
      const found = finalRewardOf(req, c, level);
      const [f, fs, fh] = await Promise.all([
        found.code === null ? Promise.resolve(undefined) : trainF(pool, task, instance, evalSeeds, found.code, steps, "final"),
        trainF(pool, task, instance, evalSeeds, task.sparseReward, steps, "sparse"),
        task.humanReward === null ? Promise.resolve(undefined) : trainF(pool, task, instance, evalSeeds, task.humanReward, steps, "human"),
      ]);
      const F = (x: typeof f) => (x && "fitness" in x ? x.fitness : undefined);
      const fSparse = F(fs);
      // No final reward (every candidate failed) or one that fails to train again scores as the sparse reward.
      const fFinal = F(f) ?? fSparse;
      const fHuman = F(fh);
      const score = fFinal !== undefined && fSparse !== undefined && fHuman !== undefined && fHuman > fSparse ? (fFinal - fSparse) / (fHuman - fSparse) : null;
      return {
        level,
        score,
        measure: "human-normalised F of the final reward's final policy on held-out evaluation seeds, (F − F_sparse) / (F_human − F_sparse)",
        raw: { name: "F", value: fFinal ?? null },
        spent: found.spent,
        detail: {
          strategy: c.strategy,
          source: found.source,
          fitness: fFinal ?? null,
          sparse: fSparse ?? null,
          human: fHuman ?? null,
          ...(f && "bestCheckpoint" in f ? { bestCheckpoint: f.bestCheckpoint } : {}),
          ...(f && "error" in f ? { error: f.error } : {}),
          ...(fs && "error" in fs ? { sparseError: fs.error } : {}),
          instanceSeed: seed,
          trainSeed: instance.trainSeed,
          searchEvalSeeds: instance.evalSeeds,
          evalSeeds,
          steps,
          code: found.code,
        },
      };
    }),
  );
};
