import { ConfigError } from "../errors.ts";
import type { LevelFamily } from "../family/family.ts";
import type { RunConfig } from "../loop/run-config.ts";
import { schedule } from "../loop/schedule.ts";
import { familyOf } from "./run-setup.ts";

/** What a run start checks of a parsed config before anything is written: its levels, seeds and run id. */
export const checkRunConfig = (cfg: RunConfig, where: string): LevelFamily => {
  const family = familyOf(cfg);
  try {
    schedule(cfg, family);
    if (cfg.method !== "rounds" && !family.searchFor?.(cfg))
      throw new ConfigError(`method: the ${family.id} family has no whole search (got ${cfg.method}); use method: rounds`);
    family.checkConfig?.(cfg);
  } catch (e) {
    throw e instanceof ConfigError ? new ConfigError(`${where}: ${e.message}`) : e;
  }
  return family;
};
