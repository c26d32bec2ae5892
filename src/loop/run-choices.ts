import { SEARCH_METHODS } from "../search/config.ts";

/**
 * The run config's named choices (src/loop/run-config.ts) that commands list in their flags: kept apart from the
 * config's schema so that a command's `--help` need not load it.
 */
export const RUN_AGENTS = ["hexa", "react", "direct", "reflexion", "heuristic"] as const;
/** How a run learns: the round loop with the bank (method.md), or a whole search per level (src/search). */
export const METHODS = ["rounds", ...SEARCH_METHODS] as const;
