import { InvariantError } from "../../../src/errors.ts";
import type { SearchResult } from "../../../src/search/candidates.ts";
import type { FinalScore, Spread } from "../../../src/store/final-scores.ts";
import { bootstrapMean, mean, std } from "../../../src/util/stats.ts";
import { instanceSeeds } from "../envs/vec-env.ts";
import type { RewardTask, TaskInstance } from "../task.ts";
import type { TrainerPool } from "../trainer/pool.ts";

/**
 * The final scoring protocol of reward search (docs/spec/reward-search.md §7): the final reward is trained again
 * on `count` fresh training seeds that no training of the search used, each final policy scored on fresh
 * evaluation seeds; the sparse and the human reward are trained and scored the same way on the same seeds; the
 * human-normalised score (F − F_sparse) / (F_human − F_sparse) is taken per training seed, then its mean, std
 * and a bootstrap interval over the seeds. A task without a human reward reports raw F the same way. The
 * seeds a search trained and evaluated on are its selection seeds: scoring on them keeps the selection's luck.
 */

/** What a final score is, in words (final-scores.json's `measure`). */
const FINAL_MEASURE =
  "human-normalised F (F − F_sparse) / (F_human − F_sparse) of the final reward's final policy, per fresh training seed (none used by the search) on fresh evaluation seeds; mean over the seeds";

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

/** One fresh training seed's figures: F of the final, sparse and human rewards' final policies, and the normalised score. */
interface SeedScore {
  trainSeed: number;
  evalSeeds: number[];
  /** F of the final reward's policy; the sparse reward's F when there is no final reward or it failed to train. */
  fitness: number | null;
  sparse: number | null;
  human: number | null;
  /** (F − F_sparse) / (F_human − F_sparse); null without a human reward or where F_human ≤ F_sparse. */
  score: number | null;
  /** Why a training of this seed failed, when one did (the final reward's, or the sparse one's). */
  error?: string;
}

export interface ProtocolResult {
  perSeed: SeedScore[];
  /** Over the seeds whose score is defined; undefined when none is. */
  score: Spread | undefined;
  /** Raw F of the final reward over the seeds where it is known. */
  fitness: Spread | undefined;
  sparse: Spread | undefined;
  human: Spread | undefined;
}

/** mean, std (n − 1) and the 95 % percentile bootstrap interval of the mean of the known values; undefined for none. */
export const spreadOf = (xs: readonly (number | null)[]): Spread | undefined => {
  const known = xs.filter((x): x is number => x !== null && Number.isFinite(x));
  if (!known.length) return undefined;
  const b = bootstrapMean(known, { seed: 1 });
  return { n: known.length, mean: mean(known), std: std(known), low: b.low, high: b.high, perSeed: [...xs] };
};

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
}

type Trained = { fitness: number } | { error: string };

/** Trains the final, sparse and human rewards on every fresh seed (at once: the pool bounds what runs) and scores them. */
export const scoreOnFreshSeeds = async (r: ProtocolRequest): Promise<ProtocolResult> => {
  const train = async (code: string, s: FreshSeeds, what: string): Promise<Trained> => {
    const o = await r.trainer.train(
      { task: r.task.id, instance: r.instance, reward: code, steps: r.steps, seed: s.trainSeed, evalSeeds: s.evalSeeds, ppo: r.task.training.ppo },
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
      const fitness = F(f) ?? sparse;
      const hum = F(fh);
      const score = fitness !== null && sparse !== null && hum !== null && hum > sparse ? (fitness - sparse) / (hum - sparse) : null;
      const error = [f, fs, fh].map((x, i) => (x && "error" in x ? `${["final", "sparse", "human"][i]}: ${x.error}` : "")).filter(Boolean);
      return { trainSeed: s.trainSeed, evalSeeds: [...s.evalSeeds], fitness, sparse, human: hum, score, ...(error.length ? { error: error.join("; ") } : {}) };
    }),
  );
  return {
    perSeed,
    score: spreadOf(perSeed.map((p) => p.score)),
    fitness: spreadOf(perSeed.map((p) => p.fitness)),
    sparse: spreadOf(perSeed.map((p) => p.sparse)),
    human: spreadOf(perSeed.map((p) => p.human)),
  };
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
  /** Env steps those trainings were budgeted (trainings × steps per training), when known. */
  envSteps?: number;
  selection: SelectionSeeds;
  /** Fresh training seeds. */
  count: number;
  steps: number;
}

/** The protocol's final score of one task, as final-scores.json records it. */
export const finalScoreOf = async (q: FinalScoreRequest): Promise<FinalScore> => {
  const seeds = freshSeeds(q.instance.seed, q.count, q.selection);
  const r = await scoreOnFreshSeeds({ ...q, seeds, label: `final-${q.task.id}-s${q.instance.seed}` });
  return {
    level: q.task.id,
    score: r.score?.mean ?? null,
    ...(r.score ? { spread: r.score } : {}),
    measure: FINAL_MEASURE,
    raw: { name: "F", value: r.fitness?.mean ?? null, ...(r.fitness ? { spread: r.fitness } : {}) },
    spent: q.spent,
    detail: {
      strategy: q.strategy,
      source: q.source,
      fitness: r.fitness?.mean ?? null,
      sparse: r.sparse?.mean ?? null,
      human: r.human?.mean ?? null,
      perSeed: r.perSeed,
      instanceSeed: q.instance.seed,
      selectionSeeds: q.selection,
      steps: q.steps,
      ...(q.envSteps === undefined ? {} : { envSteps: q.envSteps }),
      code: q.code,
    },
  };
};

/** The final score of a search's best candidate; its selection seeds are the instance's and every candidate's. */
export const scoreSearch = (
  o: Pick<FinalScoreRequest, "trainer" | "task" | "instance" | "count" | "steps"> & { result: Pick<SearchResult, "candidates" | "best">; method: string },
): Promise<FinalScore> => {
  const best = o.result.best;
  return finalScoreOf({
    ...o,
    code: best?.code ?? null,
    source: best ? `candidate #${best.index} of ${o.method}` : "none",
    strategy: o.method,
    spent: o.result.candidates.length,
    selection: selectionOf([o.instance, ...o.result.candidates]),
  });
};

/** `a ± s [low, high] (n)` of a spread, or "n/a". */
export const formatSpread = (s: Spread | undefined, digits = 2): string =>
  s ? `${s.mean.toFixed(digits)} ± ${s.std.toFixed(digits)} [${s.low.toFixed(digits)}, ${s.high.toFixed(digits)}] (n ${s.n})` : "n/a";
