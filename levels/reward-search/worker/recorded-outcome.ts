import { existsSync } from "node:fs";
import { isDeepStrictEqual } from "node:util";
import { readCacheEntry, TrainCache, type TrainerIdentity } from "../trainer/cache.ts";
import type { JobOutcome } from "../trainer/client.ts";
import type { PoolJob, PoolOutcome } from "../trainer/pool.ts";

/** An outcome a worker's cache answered, dated before any search or run started, as the replay reads a cached training. */
const BEFORE_THE_RUN = new Date(0);

/** The outcome as the trainer cache stores it (no pool fields). */
const storedOf = (o: PoolOutcome): JobOutcome =>
  o.kind === "result" ? { kind: "result", result: o.result, ...(o.losses === undefined ? {} : { losses: o.losses }) } : { kind: "error", error: o.error };

/**
 * A worker's answer to a training, recorded by the coordinator in its own trainer cache (`dir`) as a local pool
 * records the trainings it runs: an entry of the cache's format and key (trainer/cache.ts), so that `hexa verify`
 * answers the training from it (docs/guides/verify.md). An entry holding this outcome already is left as it is
 * (its first answer's date); one holding another is replaced by what the caller was answered. Returns the entry's
 * path, or undefined for an outcome the cache does not keep (a cancel, a budget stop).
 */
export const recordRemoteOutcome = (dir: string, job: PoolJob, trainer: TrainerIdentity, outcome: PoolOutcome, now: Date = new Date()): string | undefined => {
  const cache = new TrainCache(dir);
  const full = { ...job, jobDir: "" };
  const path = cache.entryPath(full, trainer);
  const stored = storedOf(outcome);
  if (existsSync(path)) {
    const read = readCacheEntry(path);
    if ("entry" in read && isDeepStrictEqual(read.entry.outcome, stored)) return path;
  }
  return cache.put(full, trainer, stored, outcome.cached ? BEFORE_THE_RUN : now) ? path : undefined;
};
