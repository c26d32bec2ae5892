import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { writeJsonAtomic } from "../../../src/store/jsonl.ts";
import { sha256Hex } from "../../../src/util/canonical-json.ts";
import { ErrorKind, ResultMessage, RewardFault } from "./protocol.ts";
import type { JobOutcome, TrainJob } from "./client.ts";

/**
 * Training results on disk, keyed by everything that decides them: (task, instance, reward code exactly as sent,
 * seed, evaluation seeds, steps, PPO overrides, trainer name + version). A repeated candidate costs nothing and
 * a resumed run re-runs no finished training. The code is hashed byte for byte: two codes that differ only in
 * layout or comments are two entries, so no rewriting of the code can ever make two meanings share one key
 * (docs/spec/reward-search.md §6).
 */

/** Part of every key and entry: an entry written under another key scheme misses, and its job is trained again. */
const CACHE_SCHEMA_VERSION = 2;

export interface TrainerIdentity {
  name: string;
  version: string;
}

/** The cache key of a job's outcome: result or reward-code fault, both under the exact code. */
export const trainCacheKey = (job: TrainJob, trainer: TrainerIdentity): string => {
  const decided = { cache: CACHE_SCHEMA_VERSION, task: job.task, instance: job.instance, reward: job.reward };
  // A job that keeps its checkpoint policies has its own entry (whose result names them); the others keep their keys.
  const rest = { seed: job.seed, evalSeeds: job.evalSeeds, steps: job.steps, ppo: job.ppo ?? {}, trainer, ...(job.keepPolicies ? { keepPolicies: true } : {}) };
  return sha256Hex({ ...decided, ...rest });
};

/** A training's outcome as stored (and as a worker hands it back through Redis): a result or a trainer error. */
export const CachedOutcome = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("result"), result: ResultMessage.omit({ type: true, id: true }) }),
  z.object({ kind: z.literal("error"), error: z.object({ kind: ErrorKind, message: z.string(), fault: RewardFault.optional() }) }),
]);

const CacheEntry = z.object({
  schemaVersion: z.literal(CACHE_SCHEMA_VERSION),
  key: z.string(),
  trainer: z.object({ name: z.string(), version: z.string() }),
  task: z.string(),
  storedAt: z.string(),
  outcome: CachedOutcome,
});

/** Which outcomes are worth keeping: results, and faults of the reward code (deterministic); never cancels or budget stops. */
const cacheable = (o: JobOutcome): boolean => o.kind === "result" || o.error.kind === "reward_code";

export class TrainCache {
  /** The folder is made by the first put: a pool built only to be asked about (a run id, a forecast) writes nothing. */
  constructor(readonly dir: string) {}

  private path(key: string) {
    return join(this.dir, `${key}.json`);
  }

  /** The file that holds (or would hold) the job's entry. */
  entryPath(job: TrainJob, trainer: TrainerIdentity): string {
    return this.path(trainCacheKey(job, trainer));
  }

  private read(key: string): JobOutcome | undefined {
    const path = this.path(key);
    if (!existsSync(path)) return undefined;
    try {
      const entry = CacheEntry.parse(JSON.parse(readFileSync(path, "utf8")));
      return entry.key === key ? (entry.outcome as JobOutcome) : undefined;
    } catch {
      return undefined; // a damaged entry is a miss; the next put replaces it
    }
  }

  get(job: TrainJob, trainer: TrainerIdentity): JobOutcome | undefined {
    return this.read(trainCacheKey(job, trainer));
  }

  /** Stores the outcome if it is cacheable; returns whether it did. */
  put(job: TrainJob, trainer: TrainerIdentity, outcome: JobOutcome, now: Date = new Date()): boolean {
    if (!cacheable(outcome)) return false;
    const key = trainCacheKey(job, trainer);
    mkdirSync(this.dir, { recursive: true });
    writeJsonAtomic(this.path(key), { schemaVersion: CACHE_SCHEMA_VERSION, key, trainer, task: job.task, storedAt: now.toISOString(), outcome });
    return true;
  }
}
