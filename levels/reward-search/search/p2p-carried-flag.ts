import { ConfigError } from "../../../src/errors.ts";
import type { BankEvent } from "../../../src/store/bank.ts";
import { readCarriedLessons } from "../../../src/search/p2p-carried.ts";

/** `--lessons-from DIR` (repeatable): earlier p2p searches whose lessons a new p2p search starts from (src/search/p2p-carried.ts). */
export const carriedLessonsOf = async (given: unknown, method: string): Promise<{ carried?: BankEvent[] }> => {
  const dirs = (Array.isArray(given) ? given : given === undefined ? [] : [given]).map(String);
  if (dirs.length === 0) return {};
  if (method !== "p2p") throw new ConfigError(`--lessons-from: lessons carry into a p2p search (--strategy p2p); this search's strategy is ${method}`);
  const carried = await readCarriedLessons(dirs);
  return carried.length ? { carried } : {};
};
