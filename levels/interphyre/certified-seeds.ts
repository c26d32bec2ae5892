import { existsSync, readFileSync } from "node:fs";
import { z } from "zod";
import { ConfigError } from "../../src/errors.ts";
import { writeAtomic } from "../../src/store/jsonl.ts";
import { CERTIFIED_DIR, certifiedPath } from "./certified-seed-list.ts";
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
