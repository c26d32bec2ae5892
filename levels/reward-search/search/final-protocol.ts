import { InvariantError } from "../../../src/errors.ts";
import type { SearchResult } from "../../../src/search/candidates.ts";
import type { FinalScore } from "../../../src/store/final-scores.ts";
import { finalFigures, type FinalFigures, type SeedF } from "./final-figures.ts";
import { instanceSeeds } from "../envs/vec-env.ts";
import type { RewardTask, TaskInstance } from "../task.ts";
import type { TrainerPool } from "../trainer/pool.ts";

/**
 * The final scoring protocol of reward search (docs/spec/reward-search.md §7): the final reward is trained again
 * on `count` fresh training seeds that no training of the search used, each final policy scored on fresh
 * evaluation seeds; the sparse and the human reward are trained and scored the same way on the same seeds, and the
 * figures of final-figures.ts are taken over every seed. The seeds a search trained and evaluated on are its
 * selection seeds: scoring on them keeps the selection's luck.
 */

/** What a final score is, in words (final-scores.json's `measure`). */
const FINAL_MEASURE =
  "F of the final reward's final policy per fresh training seed (none used by the search) on fresh evaluation seeds, and its paired differences from the sparse and human rewards trained on the same seeds; normalised = (mean F − mean F_sparse) / |mean F_human − mean F_sparse|";

/** Training seeds of the final scoring when the config does not say. */
export const DEFAULT_FINAL_TRAININGS = 3;

/**
 * Fresh seeds are drawn from the instance seeds past this one (`instanceSeeds` of FRESH_INSTANCE_BASE + 64 ·
 * instance seed + j): far above any seed a search or a run's stream plays, the same for every strategy on an
 * instance (so their final scores pair), and skipped where one still meets a selection seed.
 */
const FRESH_INSTANCE_BASE = 1_000_000;
const FRESH_PER_INSTANCE = 64;

/** The seeds a search (or a run's rounds) trained with and evaluated on. */
export interface SelectionSeeds {
  train: readonly number[];
  eval: readonly number[];
}

export interface FreshSeeds {
  trainSeed: number;
  evalSeeds: number[];
}

/** The selection seeds of task instances (each its training seed and its evaluation seeds). */
export const selectionOf = (instances: readonly Pick<TaskInstance, "trainSeed" | "evalSeeds">[]): SelectionSeeds => ({
  train: [...new Set(instances.map((i) => i.trainSeed))],
  eval: [...new Set(instances.flatMap((i) => i.evalSeeds))],
});

/** `count` fresh (training seed, evaluation seeds) sets for an instance: none of their seeds is a selection seed. */
export const freshSeeds = (instanceSeed: number, count: number, selection: SelectionSeeds): FreshSeeds[] => {
  if (count > FRESH_PER_INSTANCE) throw new InvariantError(`final scoring: at most ${FRESH_PER_INSTANCE} training seeds (asked ${count})`);
  const used = new Set([...selection.train, ...selection.eval]);
  const out: FreshSeeds[] = [];
  for (let j = 0; out.length < count; j++) {
    const s = instanceSeeds(FRESH_INSTANCE_BASE + FRESH_PER_INSTANCE * instanceSeed + j);
    if ([s.trainSeed, ...s.evalSeeds].some((x) => used.has(x))) continue;
    out.push({ trainSeed: s.trainSeed, evalSeeds: [...s.evalSeeds] });
  }
  return out;
};

/** One fresh training seed's F of the final, sparse and human rewards' final policies (final-scores.json's `perSeed`). */
type SeedScore = SeedF & {
  /** The fresh training seed. */
  seed: number;
  evalSeeds: number[];
  /** Why a training of this seed failed, when one did (the final reward's, or the sparse one's). */
  error?: string;
};

export interface ProtocolResult extends FinalFigures {
  /** Every fresh seed, none dropped. */
  perSeed: SeedScore[];
}

export interface ProtocolRequest {
  trainer: Pick<TrainerPool, "train">;
  task: RewardTask;
  instance: TaskInstance;
  /** The final reward's code; null when the search found none (it then scores as the sparse reward). */
  code: string | null;
  steps: number;
  seeds: readonly FreshSeeds[];
  /** A prefix of the trainer jobs' labels. */
  label: string;
  /** PPO settings of the final reward's trainings over the task's (p2p: the HPs its search found); the sparse and human rewards keep the task's. */
  hp?: FoundHp;
}

type Trained = { fitness: number } | { error: string };

/** Hyper-parameters a search found with its reward (p2p's search is over both; docs/spec/reward-search.md §7). */
export type FoundHp = Readonly<Record<string, number>>;

/** Trains the final, sparse and human rewards on every fresh seed (at once: the pool bounds what runs) and scores them. */
export const scoreOnFreshSeeds = async (r: ProtocolRequest): Promise<ProtocolResult> => {
  const train = async (code: string, s: FreshSeeds, what: string): Promise<Trained> => {
    const ppo = what === "final" && r.hp ? { ...r.task.training.ppo, ...r.hp } : r.task.training.ppo;
    const o = await r.trainer.train(
      { task: r.task.id, instance: r.instance, reward: code, steps: r.steps, seed: s.trainSeed, evalSeeds: s.evalSeeds, ppo },
      { label: `${r.label}-t${s.trainSeed}-${what}` },
    );
    return o.kind === "result" ? { fitness: o.result.final.fitness } : { error: o.error.message };
  };
  const F = (x: Trained | undefined) => (x && "fitness" in x ? x.fitness : null);
  const perSeed = await Promise.all(
    r.seeds.map(async (s): Promise<SeedScore> => {
      const human = r.task.humanReward;
      const [f, fs, fh] = await Promise.all([
        r.code === null ? Promise.resolve(undefined) : train(r.code, s, "final"),
        train(r.task.sparseReward, s, "sparse"),
        human === null ? Promise.resolve(undefined) : train(human, s, "human"),
      ]);
      const sparse = F(fs);
      const error = [f, fs, fh].map((x, i) => (x && "error" in x ? `${["final", "sparse", "human"][i]}: ${x.error}` : "")).filter(Boolean);
      const seed = { seed: s.trainSeed, evalSeeds: [...s.evalSeeds], fitness: F(f) ?? sparse, sparse, human: F(fh) };
      return { ...seed, ...(error.length ? { error: error.join("; ") } : {}) };
    }),
  );
  return { perSeed, ...finalFigures(perSeed) };
};

export interface FinalScoreRequest {
  trainer: Pick<TrainerPool, "train">;
  task: RewardTask;
  /** The instance the search worked on (its physical parameters); the protocol changes only its seeds. */
  instance: TaskInstance;
  code: string | null;
  /** Where the final reward came from, in words (e.g. "candidate #3 of eureka"). */
  source: string;
  strategy: string;
  /** Trainings the search spent on the task. */
  spent: number;
  /** Env steps those trainings were budgeted (trainings × steps per training). */
  envSteps: number;
  selection: SelectionSeeds;
  /** Fresh training seeds. */
  count: number;
  steps: number;
  /** The final reward's own PPO settings over the task's, when its search found them with it (p2p); unset: the task's. */
  hp?: FoundHp;
}

/** The budget a final score was trained at, against the task's scored budget, in words (its file and tables say it). */
export const budgetText = (steps: number, scored: number): string =>
  steps === scored
    ? `trained at ${steps.toLocaleString("en-US")} env steps, the task's scored budget`
    : `trained at ${steps.toLocaleString("en-US")} env steps, NOT the task's scored budget (${scored.toLocaleString("en-US")})`;

/** What the final reward was trained with, in words, when its search found its own PPO settings. */
const hpText = (hp: FoundHp): string =>
  `the final reward trained with the PPO settings its search found (${Object.entries(hp)
    .map(([k, v]) => `${k} ${v}`)
    .join(", ")}), the sparse and human rewards with the task's`;

/** The protocol's final score of one task, as final-scores.json records it (schema 3). */
export const finalScoreOf = async (q: FinalScoreRequest): Promise<FinalScore> => {
  const seeds = freshSeeds(q.instance.seed, q.count, q.selection);
  const { perSeed, ...figures } = await scoreOnFreshSeeds({ ...q, seeds, label: `final-${q.task.id}-s${q.instance.seed}` });
  const scoredSteps = q.task.training.steps;
  return {
    level: q.task.id,
    measure: `${FINAL_MEASURE}; ${budgetText(q.steps, scoredSteps)}${q.hp ? `; ${hpText(q.hp)}` : ""}`,
    headline: "fitness",
    figures: { ...figures },
    perSeed,
    spent: q.spent,
    detail: {
      strategy: q.strategy,
      source: q.source,
      instanceSeed: q.instance.seed,
      selectionSeeds: q.selection,
      steps: q.steps,
      scoredSteps,
      envSteps: q.envSteps,
      code: q.code,
      ...(q.hp ? { hp: q.hp } : {}),
    },
  };
};

/**
 * The final score of a search's best candidate; its selection seeds are the instance's and every candidate's; its
 * env steps are the candidates' trainings at `trainSteps` each.
 */
export const scoreSearch = (
  o: Pick<FinalScoreRequest, "trainer" | "task" | "instance" | "count" | "steps"> & {
    result: Pick<SearchResult, "candidates" | "best">;
    method: string;
    trainSteps: number;
  },
): Promise<FinalScore> => {
  const best = o.result.best;
  return finalScoreOf({
    ...o,
    code: best?.code ?? null,
    source: best ? `candidate #${best.index} of ${o.method}` : "none",
    strategy: o.method,
    spent: o.result.candidates.length,
    envSteps: o.result.candidates.length * o.trainSteps,
    selection: selectionOf([o.instance, ...o.result.candidates]),
  });
};
