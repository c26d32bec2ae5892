import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import type { RecordedFile, ReplayRecord } from "../../../src/family/replay.ts";
import { BUNDLE_EXTRAS, namedPolicies, runFiles } from "../../../src/bundle/run-files.ts";
import { RewardSearchConfig } from "../config.ts";

/** Where a bundle carries the trainer cache entries of its run's trainings; the replay reads them there first. */
export const BUNDLED_TRAINER_CACHE = "trainer-cache";

/** The bundled entries inside an opened bundle's run directory. */
export const bundledTrainerCache = (runDir: string): string => join(runDir, BUNDLE_EXTRAS, BUNDLED_TRAINER_CACHE);

interface EntryView {
  storedAt?: unknown;
  outcome?: { kind?: unknown; result?: { policy?: unknown } };
}

/** When the run last wrote a record: the latest modification of a file at its top. */
const lastWrite = (runDir: string): Date => new Date(Math.max(...readdirSync(runDir).map((n) => statSync(join(runDir, n)).mtimeMs)));

/**
 * The trainer cache entries a run's replay answers its trainings with (docs/guides/verify.md), for `hexa bundle`:
 * every entry stored while the run ran (from its start to its last record), and every result whose policy the
 * run's records name (a cached training it reused from an earlier run).
 */
export const recordedTrainings = async (record: Omit<ReplayRecord, "workDir">): Promise<RecordedFile[]> => {
  const c = RewardSearchConfig.parse((record.config as unknown as Record<string, unknown>).rewardSearch ?? {});
  const cacheDir = resolve(c.cacheDir);
  if (!existsSync(cacheDir)) return [];
  const policies = new Set(namedPolicies(record.runDir, runFiles(record.runDir).files));
  const until = lastWrite(record.runDir);
  const files: RecordedFile[] = [];
  for (const name of readdirSync(cacheDir).filter((n) => /^[0-9a-f]{64}\.json$/.test(n))) {
    let entry: EntryView;
    try {
      entry = JSON.parse(readFileSync(join(cacheDir, name), "utf8")) as EntryView;
    } catch {
      continue; // a damaged entry is a miss for the run too
    }
    const policy = entry.outcome?.result?.policy;
    const storedAt = typeof entry.storedAt === "string" ? new Date(entry.storedAt) : undefined;
    const duringRun = storedAt !== undefined && storedAt >= record.startedAt && storedAt <= until;
    if ((typeof policy === "string" && policies.has(policy)) || duringRun)
      files.push({ path: `${BUNDLED_TRAINER_CACHE}/${name}`, source: join(cacheDir, name) });
  }
  return files;
};
