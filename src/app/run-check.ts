import { ConfigError } from "../errors.ts";
import type { FamilyRegistry } from "./families.ts";
import type { LevelFamily } from "../family/family.ts";
import type { RunConfig } from "../loop/run-config.ts";
import { schedule } from "../loop/schedule.ts";

/** A ConfigError from checking `where` names it first. */
const namingWhere = (e: unknown, where: string): unknown => (e instanceof ConfigError ? new ConfigError(`${where}: ${e.message}`) : e);

/** What a run start checks of a parsed config before anything is written: its levels, seeds and run id. */
export const checkRunConfig = (families: FamilyRegistry, cfg: RunConfig, where: string): LevelFamily => {
  const family = families.get(cfg.family);
  try {
    const phases = schedule(cfg, family);
    if (cfg.method !== "rounds" && !family.search?.searchFor(cfg))
      throw new ConfigError(`method: the ${family.id} family has no whole search (got ${cfg.method}); use method: rounds`);
    family.checks?.checkConfig?.(cfg, phases);
  } catch (e) {
    throw namingWhere(e, where);
  }
  return family;
};

/** What a run start asks outside hexa before anything is written (a trainer's served tasks), as the family knows it. */
export const checkRunStart = async (family: LevelFamily, cfg: RunConfig, where: string): Promise<void> => {
  try {
    await family.checks?.checkStart?.(cfg);
  } catch (e) {
    throw namingWhere(e, where);
  }
};
