import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { ConfigError } from "../../src/errors.ts";
import { writeAtomic } from "../../src/store/jsonl.ts";
import { DEFAULT_ENGINE, EngineName } from "./world/engines.ts";

/** Certified seeds of one level: the committed output of `hexa levels certify` (schema-versioned, parsed on read). */
export const CertifiedSeeds = z.object({
  schemaVersion: z.literal(1),
  level: z.string(),
  /** The engine the seeds were certified on; files written before engines were named were certified on planck. */
  engine: EngineName.default(DEFAULT_ENGINE),
  budget: z.object({ random: z.number(), refine: z.number(), horizon: z.number(), trivialHorizon: z.number() }),
  seeds: z.array(
    z.object({
      seed: z.number().int(),
      solution: z.tuple([z.number(), z.number(), z.number()]),
      rollouts: z.number().int(),
      successStep: z.number().int(),
    }),
  ),
  rejected: z.array(z.object({ seed: z.number().int(), status: z.enum(["trivial", "corner_trivial", "unsolved"]), rollouts: z.number().int() })),
});
export type CertifiedSeeds = z.infer<typeof CertifiedSeeds>;

const here = dirname(fileURLToPath(import.meta.url));
export const CERTIFIED_DIR = join(here, "certified");

const certifiedPath = (level: string, dir = CERTIFIED_DIR) => join(dir, `${level}.json`);

export const readCertified = (level: string, dir = CERTIFIED_DIR): CertifiedSeeds | undefined => {
  const path = certifiedPath(level, dir);
  if (!existsSync(path)) return undefined;
  const parsed = CertifiedSeeds.safeParse(JSON.parse(readFileSync(path, "utf8")));
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ConfigError(`${path}: ${issue.path.join(".")}: ${issue.message}; re-run hexa levels certify ${level}`);
  }
  return parsed.data;
};

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

/** Atomic write (temp + rename): a crash mid-write leaves the previous file intact, so certification resumes. */
export const writeCertified = (data: CertifiedSeeds, dir = CERTIFIED_DIR): void => {
  const path = certifiedPath(data.level, dir);
  const sorted = {
    ...data,
    seeds: [...data.seeds].sort((a, b) => a.seed - b.seed),
    rejected: [...data.rejected].sort((a, b) => a.seed - b.seed),
  };
  writeAtomic(path, JSON.stringify(sorted, null, 0).replace(/\},\{/g, "},\n{") + "\n");
};
