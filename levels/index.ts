import type { FamilyHost } from "../src/family/host.ts";
import type { FamilyModule } from "../src/family/registry.ts";
import { interphyreModule } from "./interphyre/module.ts";
import { rewardSearchModule } from "./reward-search/module.ts";

/**
 * Every level family hexa ships, made for one registry (src/app/families.ts) with the host its commands reach; the
 * first is the CLI's default. A new family is one folder here plus one line below.
 */
export const shippedFamilies = (host: FamilyHost): FamilyModule[] => [interphyreModule, rewardSearchModule(host)];
