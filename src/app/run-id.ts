import { usesBank, type RunConfig } from "../loop/run-config.ts";
import type { LevelFamily } from "../family/family.ts";
import { idStamp } from "../util/id-stamp.ts";

/**
 * Run ids read level__method__seed__timestamp (docs/spec/style.md §15). A family's whole search names its strategy and
 * the proposer's agent (`eureka-heuristic`), the bank settings it does not use left out. The id is made once,
 * for a new run (of `family`, the one `c` names): a resume keeps run.json's.
 */
export const runIdOf = (c: RunConfig, family: LevelFamily, now: Date): string => {
  const levels = c.name ?? (c.levels.length <= 3 ? c.levels.join("+") : `${c.levels.length}-levels`);
  const search = family.search?.searchFor(c);
  const method = search
    ? `${search.name}-${c.agent}`
    : usesBank(c)
      ? `${c.agent}-${c.init}-${c.update}${c.evolver === "heuristic" ? "-heuristic-evolver" : ""}${c.bank.rewardLabels ? "" : "-no-reward"}`
      : c.agent;
  return `${levels}__${method}__s${c.seed}__${idStamp(now)}`;
};
