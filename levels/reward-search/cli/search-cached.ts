import { readFileSync } from "node:fs";
import type { TrainerPool } from "../trainer/pool.ts";

/**
 * A search's trainings as its record reports them (docs/guides/verify.md): one answered from the trainer cache is
 * `cached` when its entry was stored before the search first started, or an earlier training of this process used
 * it, the rule `hexa verify`'s replay applies (verify/replay-pool.ts). An entry that a killed process of the same
 * search stored is that search's own training, so a resumed search records what an uninterrupted one does.
 */
export const searchCachePool = (pool: Pick<TrainerPool, "train">, startedAt: () => Date | undefined): Pick<TrainerPool, "train"> => {
  const used = new Set<string>();
  const storedBefore = (entry: string, start: Date) => {
    const { storedAt } = JSON.parse(readFileSync(entry, "utf8")) as { storedAt?: unknown };
    return typeof storedAt !== "string" || new Date(storedAt) < start;
  };
  return {
    train: async (job, o) => {
      const out = await pool.train(job, o);
      const start = startedAt();
      if (out.entry === undefined || start === undefined) return out;
      const seen = used.has(out.entry);
      used.add(out.entry);
      return out.cached && !seen && !storedBefore(out.entry, start) ? { ...out, cached: false } : out;
    },
  };
};
