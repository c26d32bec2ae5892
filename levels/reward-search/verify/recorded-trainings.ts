import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { ConfigError } from "../../../src/errors.ts";
import type { RecordedFile, ReplayRecord } from "../../../src/family/replay.ts";
import { BUNDLE_EXTRAS, namedPolicies, runFiles } from "../../../src/bundle/run-files.ts";
import { RewardSearchConfig } from "../config.ts";
import { cacheDirOf, RUN_TRAINER_CACHE } from "../trainer/run-pools.ts";
import { rewardActionOf } from "../action.ts";
import { REMOTE_POLICY_PREFIX } from "../worker/remote-outcome.ts";

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
 * A run made before runs kept their trainings' entries: the entries of its trainer cache stored while it ran (from
 * its start to its last record), and every result whose policy the run's records name. A training it answered
 * from an entry stored earlier is not found this way; a run whose records name trainings of which none is found
 * is refused, since its bundle could be verified nowhere.
 */
const cacheEntriesOf = (record: Omit<ReplayRecord, "workDir">, cacheDir: string): RecordedFile[] => {
  const policies = new Set(namedPolicies(record.runDir, runFiles(record.runDir).files));
  const until = lastWrite(record.runDir);
  const files: RecordedFile[] = [];
  for (const name of existsSync(cacheDir) ? readdirSync(cacheDir).filter((n) => /^[0-9a-f]{64}\.json$/.test(n)) : []) {
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
  if (policies.size > 0 && files.length === 0)
    throw new ConfigError(
      `${record.runDir}: its records name ${policies.size} trained polic${policies.size === 1 ? "y" : "ies"}, but the results of its trainings are neither in the run (no ${RUN_TRAINER_CACHE}/, which runs made by this hexa keep) nor in its trainer cache ${cacheDir}; a bundle of it could not be verified; bundle it on the machine that holds its trainer cache`,
    );
  return files;
};

/** The values of a JSON lines file, a damaged line skipped. */
const jsonLines = (path: string): unknown[] =>
  existsSync(path)
    ? readFileSync(path, "utf8")
        .split("\n")
        .flatMap((l) => {
          try {
            return l.trim() ? [JSON.parse(l) as unknown] : [];
          } catch {
            return [];
          }
        })
    : [];

/** The policies of trainings a worker ran (`remote:<worker>`, worker/remote-outcome.ts) that the run's episodes committed. */
const remotePoliciesOf = (runDir: string): string[] => {
  const found = new Set<string>();
  for (const e of jsonLines(join(runDir, "episodes.jsonl"))) {
    const policy = rewardActionOf((e as { trajectory?: { action?: unknown } } | null)?.trajectory?.action)?.policy;
    if (policy?.startsWith(REMOTE_POLICY_PREFIX)) found.add(policy);
  }
  return [...found].sort();
};

/** The policies of the results the run keeps in `dir` (its trainer-cache/). */
const keptPoliciesOf = (dir: string): Set<string> =>
  new Set(
    (existsSync(dir) ? readdirSync(dir).filter((n) => n.endsWith(".json")) : []).flatMap((n) => {
      try {
        const policy = (JSON.parse(readFileSync(join(dir, n), "utf8")) as EntryView).outcome?.result?.policy;
        return typeof policy === "string" ? [policy] : [];
      } catch {
        return [];
      }
    }),
  );

/**
 * A run whose episodes committed a worker's training keeps that worker's results (the coordinator keeps each from
 * the episode's result, worker/kept-trainings.ts); one played by workers that handed none back is refused, naming
 * the worker's policy, since its bundle could be verified nowhere.
 */
const checkRemoteKept = (runDir: string): void => {
  const own = join(runDir, RUN_TRAINER_CACHE);
  const kept = keptPoliciesOf(own);
  const missing = remotePoliciesOf(runDir).find((p) => !kept.has(p));
  if (missing)
    throw new ConfigError(
      `${runDir}: its episodes committed a policy trained on a worker (${missing}), but the run keeps no result of that worker's trainings in ${own}; its workers handed back none (a hexa that did not), so a bundle of it could be verified nowhere: play the run again with workers of this hexa`,
    );
};

/**
 * The trainer cache entries a run's replay answers its trainings with (docs/guides/verify.md), for `hexa bundle`
 * to pack beside the run's own files: none for a run that keeps them in its trainer-cache/ (a run's own files are
 * packed whole); for an older run, those its trainer cache holds.
 */
export const recordedTrainings = async (record: Omit<ReplayRecord, "workDir">): Promise<RecordedFile[]> => {
  checkRemoteKept(record.runDir);
  if (existsSync(join(record.runDir, RUN_TRAINER_CACHE))) return [];
  const c = RewardSearchConfig.parse((record.config as unknown as Record<string, unknown>).rewardSearch ?? {});
  return cacheEntriesOf(record, cacheDirOf(c, record.runDir));
};
