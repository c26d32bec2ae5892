import { existsSync, mkdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { writeJsonAtomic } from "../../../src/store/jsonl.ts";
import { sha256Hex } from "../../../src/util/canonical-json.ts";
import { MAX_TRAINER_LINE_BYTES } from "./host-limits.ts";
import { LossSummary } from "./loss-summary.ts";
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

/**
 * A training's outcome as stored (and as a worker hands it back through Redis): a result, with the summary of its
 * PPO losses (absent in entries written before entries kept it: they still read, and say they lack it), or a
 * trainer error.
 */
export const CachedOutcome = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("result"), result: ResultMessage.omit({ type: true, id: true }), losses: LossSummary.nullable().optional() }),
  z.object({ kind: z.literal("error"), error: z.object({ kind: ErrorKind, message: z.string(), fault: RewardFault.optional() }) }),
]);

/** The largest entry read: a result as the trainer's longest protocol line, and room for the rest. */
export const MAX_ENTRY_BYTES = MAX_TRAINER_LINE_BYTES + 64 * 1024;

const CacheEntry = z.object({
  schemaVersion: z.literal(CACHE_SCHEMA_VERSION),
  key: z.string(),
  trainer: z.object({ name: z.string(), version: z.string() }),
  task: z.string(),
  storedAt: z.string(),
  outcome: CachedOutcome,
});

export type CacheEntry = z.infer<typeof CacheEntry>;

/**
 * Whether a search reports a training answered from an entry as cached (docs/guides/verify.md): the entry was
 * stored before the search first started, or an earlier training of the search used it. The search and its
 * replay by `hexa verify` apply the same rule.
 */
export const cachedForSearch = (storedAt: string, searchStarted: Date, usedBefore: boolean): boolean => usedBefore || new Date(storedAt) < searchStarted;

/**
 * The entry a file holds, checked field by field (docs/security.md: a cache folder may be a stranger's, e.g. a
 * bundle's): the entry, or the first problem as `field: message`.
 */
export const readCacheEntry = (path: string): { entry: CacheEntry } | { problem: string } => {
  const bytes = statSync(path).size;
  if (bytes > MAX_ENTRY_BYTES) return { problem: `(the file): ${bytes} bytes, over the ${MAX_ENTRY_BYTES} an entry may hold` };
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, "utf8"));
  } catch (e) {
    return { problem: `(the file): not JSON (${(e as Error).message})` };
  }
  const parsed = CacheEntry.safeParse(raw);
  if (parsed.success) return { entry: parsed.data };
  const issue = parsed.error.issues[0]!;
  return { problem: `${issue.path.join(".") || "(the entry)"}: ${issue.message}` };
};

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
    const read = readCacheEntry(path);
    // A damaged entry is a miss; the next put replaces it.
    return "entry" in read && read.entry.key === key ? (read.entry.outcome as JobOutcome) : undefined;
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
