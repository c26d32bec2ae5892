import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { ConfigError } from "../../../src/errors.ts";
import type { RecordedFile, ReplayRecord } from "../../../src/family/replay.ts";
import { BUNDLE_EXTRAS, namedPolicies, runFiles } from "../../../src/bundle/run-files.ts";
import { RewardSearchConfig } from "../config.ts";
import { cacheDirOf, RUN_TRAINER_CACHE } from "../trainer/run-pools.ts";

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
 * from an entry stored earlier is not found this way; a run whose records name trainings (a policy, or a step
 * of a training tool: a worker's training names no policy here) of which none is found is refused, since its
 * bundle could be verified nowhere.
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
  // A training a worker ran names no policy file here (worker/remote-outcome.ts): the episodes' steps count it.
  const trainings = Math.max(policies.size, trainingStepsOf(record.runDir));
  if (trainings > 0 && files.length === 0)
    throw new ConfigError(
      `${record.runDir}: its records name ${trainings} training${trainings === 1 ? "" : "s"}, but the results of its trainings are neither in the run (no ${RUN_TRAINER_CACHE}/, which runs made by this hexa keep) nor in its trainer cache ${cacheDir}; a bundle of it could not be verified; bundle it on the machine that holds its trainer cache`,
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

/** The training tools (tools/train_policy.ts, tools/finish.ts): a step of one that ran trained once. */
const TRAINING_TOOLS = new Set(["train_policy", "finish"]);

/** The trainings the run's episodes asked for: their steps of a training tool that ran (a cached training included). */
const trainingStepsOf = (runDir: string): number =>
  jsonLines(join(runDir, "episodes.jsonl")).reduce<number>((n, e) => {
    const steps = (e as { trajectory?: { steps?: unknown } } | null)?.trajectory?.steps;
    const ran = Array.isArray(steps) ? steps.filter((t: { tool?: unknown; ok?: unknown }) => TRAINING_TOOLS.has(String(t?.tool)) && t?.ok === true) : [];
    return n + ran.length;
  }, 0);

/**
 * The trainer cache entries a run's replay answers its trainings with (docs/guides/verify.md), for `hexa bundle`
 * to pack beside the run's own files: none for a run that keeps them in its trainer-cache/ (a run's own files are
 * packed whole); for an older run, those its trainer cache holds.
 */
export const recordedTrainings = async (record: Omit<ReplayRecord, "workDir">): Promise<RecordedFile[]> => {
  if (existsSync(join(record.runDir, RUN_TRAINER_CACHE))) return [];
  const c = RewardSearchConfig.parse((record.config as unknown as Record<string, unknown>).rewardSearch ?? {});
  return cacheEntriesOf(record, cacheDirOf(c, record.runDir));
};
