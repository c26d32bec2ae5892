import type { LevelFamily } from "../family.ts";
import type { RunConfig } from "../run-config.ts";
import { scheduleLevel } from "../schedule.ts";

/**
 * The held-out seeds of a comparison: vetted seeds that every cell's schedule holds out on every level and that
 * no cell learns from (stream or offline block), in the first level's order, at most `count`. One list for
 * every level because `hexa eval --seeds` plays the same seeds on each; the same list for every run, so the
 * held-out figures are paired too. Fewer than `count` when the vetted lists run short (the caller says so).
 */
export const sharedHeldOut = (cfgs: readonly RunConfig[], family: LevelFamily, count: number): number[] => {
  const levels = cfgs[0]?.levels ?? [];
  const perLevel = levels.map((level) => {
    const plans = cfgs.map((c) => scheduleLevel(c, family, level));
    const seen = new Set(plans.flatMap((p) => [...p.seen]));
    return plans[0]!.heldOut.filter((s) => !seen.has(s) && plans.every((p) => p.heldOut.includes(s)));
  });
  const [first = [], ...rest] = perLevel;
  return first.filter((s) => rest.every((l) => l.includes(s))).slice(0, count);
};
