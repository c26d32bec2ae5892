import { join } from "node:path";
import { CHARS_PER_TOKEN } from "../../../src/llm/budget.ts";
import { settleAll } from "../../../src/search/batch.ts";
import { CANDIDATE_SCHEMA_VERSION, type SearchHeader } from "../../../src/search/candidates.ts";
import { headerOptions, searchBudget } from "../../../src/search/config.ts";
import { checkP2pBudget, runP2p, trainSeedsOf } from "../../../src/search/p2p.ts";
import { bestIteration } from "../../../src/search/p2p-context.ts";
import { p2pDirLog } from "../../../src/search/p2p-log.ts";
import { openSearchDir } from "../../../src/search/search-dir.ts";
import type { FamilySearch } from "../../../src/family/capabilities.ts";
import type { RunConfig } from "../../../src/loop/run-config.ts";
import { budgetsOf, type RewardSearchConfig } from "../config.ts";
import { heuristicReviser } from "../proposers/p2p-heuristic-reviser.ts";
import { getTask } from "../tasks/index.ts";
import type { TaskInstance } from "../task.ts";
import type { TrainerPool } from "../trainer/pool.ts";
import type { FoundHp, SelectionSeeds } from "./final-protocol.ts";
import { InvariantError } from "../../../src/errors.ts";
import { fitnessCheckpointJudge } from "./p2p-fitness-judge.ts";
import { p2pTrainer, ppoHpSpace } from "./p2p-trainer.ts";

/**
 * `hexa run` with `method: p2p` (docs/spec/reward-search.md §8.6): every task of the config searched by the p2p
 * strategy in `search/<task>/` of the run directory, on the task's first stream seed, with the fitness judge, the
 * run's trainer pool (this machine's trainer processes, or with `--backend` the workers' trainings queue) and the heuristic reviser (agent
 * heuristic) or the LLM one on the actor model, each call metered. A spend cap stops it at the next model call,
 * which comes between iterations, when no training is in flight.
 */

/** Characters of a revision prompt beyond the task text: two codes, the checkpoint table, feedback, history (p2p-prompts.ts). */
const REVISION_CHARS = 7000;
const VARIANT_CHARS = 700;
const REVISION_OUTPUT = 900;
const VARIANT_OUTPUT = 60;

const iterationsLeft = (dir: string | undefined, level: string, budget: number, perIteration: number, cap: number): number => {
  const done = dir === undefined ? 0 : p2pDirLog(join(dir, "search", level)).iterations().length;
  return Math.max(0, Math.min(cap, Math.ceil(budget / perIteration)) - done);
};

export const p2pSearchOfRun = (config: RunConfig, c: RewardSearchConfig, pool: TrainerPool): FamilySearch => {
  const budget = searchBudget("p2p", config.search);
  const p = config.search.p2p;
  checkP2pBudget(budget, p);
  const seed = config.seeds.offset;
  const usesModel = config.agent !== "heuristic";
  const tokens = (chars: number) => Math.ceil(chars / CHARS_PER_TOKEN);
  return {
    name: "p2p",
    label: `p2p: ${budget} trainings per task, ${p.configs} configs × ${p.trainSeeds} seeds per iteration`,
    calls: (dir) => {
      const left = usesModel ? config.levels.reduce((n, l) => n + iterationsLeft(dir, l, budget, p.configs * p.trainSeeds, p.maxIterations), 0) : 0;
      const task = getTask(config.levels[0]!).description.length;
      return {
        candidates: left,
        perCandidate: {
          calls: p.configs,
          input: tokens(task + REVISION_CHARS) + (p.configs - 1) * tokens(VARIANT_CHARS),
          output: REVISION_OUTPUT + (p.configs - 1) * VARIANT_OUTPUT,
        },
        basis: `per iteration one revision (the task, two codes, the checkpoint table and feedback, ~${REVISION_CHARS.toLocaleString("en")} characters) and ${p.configs - 1} HP-variant request(s); the first iteration's proposal counted as a revision`,
      };
    },
    run: async ({ dir, actorModel, onCall, log, signal }) => {
      await settleAll(
        config.levels.map(async (level) => {
          signal?.throwIfAborted();
          const task = getTask(level);
          const model = usesModel && actorModel ? (onCall ? actorModel.listening((turn) => onCall({ level, seed }, turn)) : actorModel) : undefined;
          // The LLM reviser's modules (its read tools, the judgment reader) load only for a search with a model.
          const reviser = model ? (await import("../proposers/p2p-llm-reviser.ts")).llmReviser(model) : heuristicReviser();
          const steps = budgetsOf(c, task.training.steps).train;
          const where = join(dir, "search", level);
          const header: SearchHeader = {
            schemaVersion: CANDIDATE_SCHEMA_VERSION,
            strategy: "p2p",
            task: task.id,
            seed,
            budget,
            trainSteps: steps,
            proposer: reviser.label,
            options: { ...headerOptions("p2p", config.search), searchSeed: config.seed },
          };
          openSearchDir(where, header);
          const judge = fitnessCheckpointJudge();
          const r = await runP2p({
            task,
            instance: task.generate(seed),
            seed: config.seed,
            source: task.id,
            reviser,
            trainer: p2pTrainer(pool, steps),
            judge,
            space: ppoHpSpace(task),
            log: p2pDirLog(where),
            budget,
            config: p,
          });
          const best = r.best
            ? `best iteration ${r.best.iteration} config ${r.best.config} score ${r.best.score.toFixed(2)} (${judge.label}${underVersion(r.best.judgeVersion)})`
            : "no iteration finished";
          log(`${level}: p2p ${r.iterations.length} iterations, ${r.trainings}/${budget} trainings (${r.trained} trained now), stopped at ${r.stop}; ${best}`);
        }),
      );
    },
  };
};

/** ", under code judge vN" where the best was chosen among the iterations that version scored; "" for a judge with one version. */
const underVersion = (version: number | undefined): string => (version === undefined ? "" : `, under code judge v${version}`);

/**
 * The final reward of a p2p search: the best iteration's code and its best configuration's HPs (best by the mean
 * over seeds). The search is over the reward and PPO's settings together, so the final score trains that code
 * with those HPs over the task's PPO settings (docs/spec/reward-search.md §7); the trainings it spent and the seeds
 * it selected on are counted.
 */
export const p2pFinalReward = (
  dir: string,
  instance: TaskInstance,
  seeds: number,
): { code: string | null; source: string; spent: number; selection: SelectionSeeds; hp?: FoundHp } => {
  const log = p2pDirLog(dir);
  const plans = log.plans();
  const iterations = log.iterations();
  const best = bestIteration(iterations);
  const spent = iterations.reduce((n, r) => n + r.configs.length * seeds, 0);
  const selection = { train: trainSeedsOf(instance, seeds), eval: [...instance.evalSeeds] };
  if (!best) return { code: null, source: "none", spent, selection };
  const hp = best.configs.find((c) => c.config === best.best)?.hp;
  if (!hp) throw new InvariantError(`p2p: iteration ${best.iteration} of ${dir} names best config ${best.best}, which it does not record`);
  const source = `iteration ${best.iteration} (config ${best.best}, with its HPs${underVersion(best.judgeVersion)}) of p2p`;
  return { code: plans[best.iteration]!.code, source, spent, selection, hp };
};
