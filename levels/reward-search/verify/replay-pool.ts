import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { CannotVerify } from "../../../src/verify/outcome.ts";
import type { RewardSearchConfig } from "../config.ts";
import { type CacheEntry, cachedForSearch, MAX_ENTRY_BYTES, readCacheEntry, trainCacheKey, type TrainerIdentity } from "../trainer/cache.ts";
import type { JobOutcome } from "../trainer/client.ts";
import { createTrainerPool, type PoolJob, type PoolTrainOptions, type TrainerPool } from "../trainer/pool.ts";

/** A training the replay answered from the record: the job, the trainer that ran it and what it gave. */
export interface RecordedTraining {
  key: string;
  job: PoolJob;
  trainer: TrainerIdentity;
  outcome: JobOutcome;
}

/** What one run's replay needs of its trainings, and what it took. */
export interface TrainingsReplay {
  /** Where the recorded trainings are read (`recordedTrainingsDir`). */
  cacheDir: string;
  /** When the run started: an entry stored before it was already cached for the run. */
  startedAt: Date;
  used: RecordedTraining[];
  /** The first training the record lacks; kept here, because a tool may catch the error it raises. */
  missing?: string;
}

/** The trainer an entry names, read leniently: it only names a key to look up, whose entry is then checked whole. */
const trainerNamed = (path: string): TrainerIdentity | undefined => {
  try {
    if (statSync(path).size > MAX_ENTRY_BYTES) return undefined;
    const t = (JSON.parse(readFileSync(path, "utf8")) as { trainer?: Partial<TrainerIdentity> } | null)?.trainer;
    return typeof t?.name === "string" && typeof t.version === "string" ? { name: t.name, version: t.version } : undefined;
  } catch {
    return undefined;
  }
};

/** The trainers (name and version) with entries in a cache folder: a job is looked up under each. */
const identitiesIn = (dir: string): TrainerIdentity[] => {
  if (!existsSync(dir)) return [];
  const seen = new Map<string, TrainerIdentity>();
  for (const name of readdirSync(dir).filter((n) => n.endsWith(".json"))) {
    const t = trainerNamed(join(dir, name));
    if (t) seen.set(`${t.name}\0${t.version}`, t);
  }
  return [...seen.values()];
};

/**
 * Where a replay reads a run's (or search's) recorded trainings (docs/security.md): the entries its bundle carries,
 * else the folder the reader names (`hexa verify --trainer-cache`), else the trainer cache beside the directory
 * in its runs folder (`runs/.trainer-cache`, docs/ARCHITECTURE.md §6). Never the cacheDir the run's own config
 * names: that path is the run's choice, and a stranger's run may name any folder of the reader's machine.
 */
export const recordedTrainingsDir = (dir: string, bundled: string, readerCache: string | undefined): string => {
  if (existsSync(bundled)) return bundled;
  return resolve(readerCache ?? join(dirname(resolve(dir)), ".trainer-cache"));
};

interface FoundEntry {
  trainer: TrainerIdentity;
  key: string;
  path: string;
  entry: CacheEntry;
}

/**
 * The job's entry in `dir` under any of the trainers, the latest stored; undefined when none holds it. An entry
 * that fails the cache's checks is no record: why, naming the file and the field.
 */
const recordedEntry = (dir: string, trainers: readonly TrainerIdentity[], job: PoolJob): FoundEntry | string | undefined => {
  const found: FoundEntry[] = [];
  for (const trainer of trainers) {
    const key = trainCacheKey({ ...job, jobDir: "" }, trainer);
    const path = join(dir, `${key}.json`);
    if (!existsSync(path)) continue;
    const read = readCacheEntry(path);
    if ("problem" in read) return `${path}: ${read.problem}; the recorded training was edited or damaged, so it cannot be replayed`;
    if (read.entry.key !== key)
      return `${path}: key: ${JSON.stringify(read.entry.key.slice(0, 80))} is not the file's key ${key}; the entry was moved or edited`;
    found.push({ trainer, key, path, entry: read.entry });
  }
  return found.sort((a, b) => b.entry.storedAt.localeCompare(a.entry.storedAt))[0];
};

const notRecorded = (dir: string, job: PoolJob): string =>
  `${dir}: no recorded result for a ${job.task} training (seed ${job.seed}, ${job.steps} steps); the run's trainer cache lacks it (deleted, or written elsewhere: name the folder that holds it with --trainer-cache DIR; hexa verify never follows the cacheDir a run's config names), so its trainings cannot be replayed`;

/** Why an entry cannot answer a caller that reads the training's loss summary: a result recorded without one. */
const lackingLosses = (found: FoundEntry, o: PoolTrainOptions | undefined): string | undefined =>
  o?.needsLosses && found.entry.outcome.kind === "result" && found.entry.outcome.losses === undefined
    ? `${found.path}: outcome.losses: missing; the entry was stored by a hexa whose trainer cache kept no summary of a training's PPO losses, and the replayed search shows them to its reviser (PPO diagnostics), so this training cannot be replayed as it ran; make the search again with this hexa`
    : undefined;

/**
 * The reward-search trainer of a replay (docs/guides/verify.md): every training is answered from the run's
 * trainer cache, keyed as the cache keys it (task, instance, reward code, seeds, steps, trainer); nothing is
 * trained. An entry stored before the run started is reported cached, as the run saw it; so is the second use
 * of one the run stored. A training the cache lacks cannot be verified.
 */
export const replayTrainerPool = (current: () => TrainingsReplay): TrainerPool => {
  let identities: { dir: string; list: TrainerIdentity[] } | undefined;
  return {
    train: async (job, o) => {
      const replay = current();
      if (identities?.dir !== replay.cacheDir) identities = { dir: replay.cacheDir, list: identitiesIn(replay.cacheDir) };
      const refuse = (what: string): never => {
        replay.missing ??= what;
        throw new CannotVerify(what);
      };
      const found = recordedEntry(replay.cacheDir, identities.list, job) ?? refuse(notRecorded(replay.cacheDir, job));
      if (typeof found === "string") return refuse(found);
      const lacking = lackingLosses(found, o);
      if (lacking) return refuse(lacking);
      const outcome = found.entry.outcome as JobOutcome;
      const cached = cachedForSearch(
        found.entry.storedAt,
        replay.startedAt,
        replay.used.some((u) => u.key === found.key),
      );
      replay.used.push({ key: found.key, job, trainer: found.trainer, outcome });
      return { ...outcome, cached, jobDir: null, entry: found.path };
    },
    hello: async () => {
      throw new CannotVerify("a replayed trainer has no process to greet; its trainings are answered from the record");
    },
    sent: 0,
    close: async () => {},
  };
};

/**
 * Real trainer processes for `--retrain`, writing only below `jobsDir`: the reader's own trainer command, else the
 * built-in trainer, never the one the run's config names (docs/security.md); the run's per-job budgets (numbers
 * that shape a training's result) are kept.
 */
export const retrainPool = (c: RewardSearchConfig, jobsDir: string, trainerCommand: readonly string[] | undefined): TrainerPool =>
  createTrainerPool({
    ...(trainerCommand ? { command: [...trainerCommand] } : {}),
    jobsDir,
    budget: { ...(c.trainer.wallMs ? { wallMs: c.trainer.wallMs } : {}), ...(c.trainer.maxSteps ? { maxSteps: c.trainer.maxSteps } : {}) },
  });
