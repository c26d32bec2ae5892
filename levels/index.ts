import type { FamilyModule } from "../src/family/registry.ts";
import { interphyreModule } from "./interphyre/module.ts";
import { rewardSearchModule } from "./reward-search/module.ts";

/** Every level family hexa ships; the first is the CLI's default. A new family is one folder here plus one line below. */
export const FAMILIES: readonly FamilyModule[] = [interphyreModule, rewardSearchModule];
