import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { ConfigError } from "../../src/errors.ts";

// The seed lists alone, without the certificate's schema (certified-seeds.ts): a run's seed schedule and
// `hexa levels list` read them, and a listing loads no validation library.

const here = dirname(fileURLToPath(import.meta.url));
export const CERTIFIED_DIR = join(here, "certified");

export const certifiedPath = (level: string, dir = CERTIFIED_DIR) => join(dir, `${level}.json`);

/**
 * A level's certified seeds in their stored order, without parsing the solutions (certify and replay read the
 * whole file with readCertified): what a run's seed schedule and `hexa levels list` need, at a fraction of the cost.
 */
export const readCertifiedSeeds = (level: string, dir = CERTIFIED_DIR): number[] => {
  const path = certifiedPath(level, dir);
  if (!existsSync(path)) return [];
  const seeds = (JSON.parse(readFileSync(path, "utf8")) as { seeds?: unknown }).seeds;
  if (!Array.isArray(seeds) || !seeds.every((s: { seed?: unknown } | null) => Number.isSafeInteger(s?.seed) && (s!.seed as number) >= 0)) {
    throw new ConfigError(`${path}: seeds: expected a list of {seed: integer ≥ 0, …}; re-run hexa levels certify ${level}`);
  }
  return seeds.map((s: { seed: number }) => s.seed);
};
