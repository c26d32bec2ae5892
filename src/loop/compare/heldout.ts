import type { LevelFamily } from "../../family/family.ts";
import type { RunConfig } from "../run-config.ts";
import { scheduleLevel } from "../schedule.ts";

/**
 * The held-out seeds of a comparison, per level: vetted seeds that every cell's schedule holds out on that level
 * and that no cell learns from (stream or offline block), at most `count` each. The same lists for every run, so
 * the held-out figures are paired too; per level because the levels' vetted lists differ (a seed unseen on one
 * level may be in another's stream). Fewer than `count` where a list runs short (the caller says so).
 */
export const sharedHeldOut = (cfgs: readonly RunConfig[], family: LevelFamily, count: number): Record<string, number[]> =>
  Object.fromEntries(
    (cfgs[0]?.levels ?? []).map((level) => {
      const plans = cfgs.map((c) => scheduleLevel(c, family, level));
      const seen = new Set(plans.flatMap((p) => [...p.seen]));
      return [level, plans[0]!.heldOut.filter((s) => !seen.has(s) && plans.every((p) => p.heldOut.includes(s))).slice(0, count)];
    }),
  );

/** The levels that have held-out seeds, and the `hexa eval --seeds` argument that plays them. */
export const heldOutArg = (seeds: Readonly<Record<string, readonly number[]>>): string =>
  Object.entries(seeds)
    .filter(([, s]) => s.length)
    .map(([level, s]) => `${level}=${s.join(",")}`)
    .join(";");
