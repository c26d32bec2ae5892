import { cachedForSearch, readCacheEntry } from "../trainer/cache.ts";
import type { TrainerPool } from "../trainer/pool.ts";

/**
 * A search's trainings as its record reports them (docs/guides/verify.md): one answered from the trainer cache is
 * `cached` by the rule `hexa verify`'s replay applies (trainer/cache.ts `cachedForSearch`). An entry that a killed
 * process of the same search stored is that search's own training, so a resumed search records what an
 * uninterrupted one does. A training shared with an identical one in flight used that one's entry, as the
 * replay, which asks them in the same order, sees it. An entry that cannot be read back keeps what the pool said.
 */
export const searchCachePool = (pool: Pick<TrainerPool, "train">, startedAt: () => Date | undefined): Pick<TrainerPool, "train"> => {
  const used = new Set<string>();
  return {
    train: async (job, o) => {
      const out = await pool.train(job, o);
      const start = startedAt();
      if (out.entry === undefined || start === undefined) return out;
      const seen = used.has(out.entry) || out.shared === true;
      used.add(out.entry);
      const read = out.cached ? readCacheEntry(out.entry) : undefined;
      return read && "entry" in read && !cachedForSearch(read.entry.storedAt, start, seen) ? { ...out, cached: false } : out;
    },
  };
};
