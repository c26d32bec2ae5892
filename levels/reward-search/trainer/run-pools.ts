import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { familyConfig } from "../../../src/family/family.ts";
import type { RunConfig } from "../../../src/loop/run-config.ts";
import type { RewardSearchConfig } from "../config.ts";
import type { PoolJob, PoolOutcome, PoolTrainOptions, TrainerPool } from "./pool.ts";

/**
 * Where a run keeps the trainer cache entries of its trainings (docs/guides/publishing.md): a copy of each, made
 * when the training is answered, whether trained or from the cache. The run then holds every result its replay
 * needs (docs/guides/verify.md), wherever the cache is and whatever happens to it.
 */
export const RUN_TRAINER_CACHE = "trainer-cache";

/**
 * A folder of the trainings' own, as a run places it when its config leaves it unset: `name` in the run's runs
 * folder (beside its run directories, where --runs-dir puts them); for a command that makes no run, in `runs/` here.
 */
const placed = (given: string | undefined, name: string, runDir: string | undefined): string =>
  resolve(given ?? (runDir === undefined ? join("runs", name) : join(dirname(resolve(runDir)), name)));

/** The trainer cache folder of a config (`rewardSearch.cacheDir`), for a run in `runDir`. */
export const cacheDirOf = (c: RewardSearchConfig, runDir: string | undefined): string => placed(c.cacheDir, ".trainer-cache", runDir);

/** The trainer jobs folder of a config (`rewardSearch.jobsDir`), for a run in `runDir`. */
export const jobsDirOf = (c: RewardSearchConfig, runDir: string | undefined): string => placed(c.jobsDir, ".trainer-jobs", runDir);

/**
 * Copies a training's cache entry into the run, whole or not at all (through a temporary file renamed into
 * place); an entry the run holds already with the same bytes is left as it is.
 */
const keepEntry = (dir: string, outcome: PoolOutcome): void => {
  if (outcome.entry === undefined) return;
  const to = join(dir, basename(outcome.entry));
  const bytes = readFileSync(outcome.entry);
  if (existsSync(to) && readFileSync(to).equals(bytes)) return;
  mkdirSync(dir, { recursive: true });
  const temp = `${to}.tmp-${process.pid}`;
  writeFileSync(temp, bytes);
  renameSync(temp, to);
};

/**
 * One trainer pool per trainer setting (command, cache, jobs directory), built on first use and closed together.
 * A pool is handed out before the run directory exists (a search is planned first), so what it is asked is
 * routed at call time: to the pool of the cache the run's folder places, and each answer kept in the run.
 */
export class TrainerPools {
  private readonly pools = new Map<string, TrainerPool>();
  private runDir: string | undefined;
  /** Whether each answer is kept in the run (a run's own pools), or the run only places the folders (hexa eval). */
  private keeping = true;

  constructor(
    private readonly trainerFor: (c: RewardSearchConfig) => TrainerPool,
    private readonly slice: { key: string; schema: typeof RewardSearchConfig },
  ) {}

  /** The run whose trainings the pools answer from now on, beside it in its runs folder; `keep`: each kept in it too. */
  useRun(runDir: string, keep = true): void {
    this.runDir = runDir;
    this.keeping = keep;
  }

  /** Where the run keeps its trainings' entries (RUN_TRAINER_CACHE); undefined while no run is open to keep them. */
  get keptDir(): string | undefined {
    return this.runDir === undefined || !this.keeping ? undefined : join(this.runDir, RUN_TRAINER_CACHE);
  }

  private inner(c: RewardSearchConfig): TrainerPool {
    const here = { ...c, cacheDir: cacheDirOf(c, this.runDir), jobsDir: jobsDirOf(c, this.runDir) };
    const key = JSON.stringify([here.trainer, here.cacheDir, here.jobsDir]);
    if (!this.pools.has(key)) this.pools.set(key, this.trainerFor(here));
    return this.pools.get(key)!;
  }

  of(config: RunConfig): { pool: TrainerPool; c: RewardSearchConfig } {
    const c = familyConfig(config, this.slice);
    const pools = this;
    const pool: TrainerPool = {
      train: async (job: PoolJob, o?: PoolTrainOptions) => {
        const outcome = await pools.inner(c).train(job, o);
        const kept = pools.keptDir;
        if (kept !== undefined) keepEntry(kept, outcome);
        return outcome;
      },
      hello: () => pools.inner(c).hello(),
      get sent() {
        return pools.inner(c).sent;
      },
      // Closed with the others by close().
      close: async () => {},
    };
    return { pool, c };
  }

  async close(): Promise<void> {
    await Promise.all([...this.pools.values()].map((p) => p.close()));
    this.pools.clear();
  }
}
