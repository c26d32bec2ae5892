import { join } from "node:path";
import type { FamilyRegistry } from "./families.ts";
import type { LevelFamily } from "../family/family.ts";
import type { FamilySearch } from "../family/capabilities.ts";
import { checkOfflineInputs } from "../loop/offline-inputs.ts";
import { usesBank, type RunConfig } from "../loop/run-config.ts";
import type { Bank } from "../store/bank.ts";
import { checkRecordedBank } from "../store/bank-check.ts";
import { readOfflineTrajectories } from "../store/offline-trajectories.ts";
import { RunDir, updateKey } from "../store/run-dir.ts";
import type { CodeVersion } from "../store/run-records.ts";
import { readShippedBanks } from "../store/shipped-bank.ts";
import type { Trajectory } from "../store/trajectory.ts";
import { checkRunConfig } from "./run-check.ts";
import { runIdOf } from "./run-id.ts";
import { codeLabel, codeVersion, readRunConfig, runDirConfig } from "./run-setup.ts";

/** Replaces the family a run's config names, e.g. with one whose trainings are replayed from a recorded run. */
export type FamilyOverride = (family: LevelFamily, cfg: RunConfig) => LevelFamily;

/** What a run start has checked and read before anything is connected or written. */
export interface RunPlan {
  cfg: RunConfig;
  /** The config file in messages: the config path, or `<run>/config.yaml` on a resume. */
  where: string;
  family: LevelFamily;
  /** The run directory a resume continues. */
  existing?: RunDir;
  code: CodeVersion;
  id: string;
  startedAt: Date;
  /** A family's whole search (reward search's eureka / rf-agent), which replaces the rounds. */
  search?: FamilySearch;
  offline?: () => Map<string, Trajectory[]>;
  shipped?: () => Map<string, Bank>;
}

/**
 * A resume by another hexa is allowed but said loudly, and every writer is kept in writers.jsonl: a fix
 * committed between a crash and its resume is the usual case, and refusing would strand a paid run; the
 * record lets anyone reading the run's numbers see that they come from more than one version.
 */
const warnIfOtherCode = (dir: RunDir, code: CodeVersion, warn: (line: string) => void): void => {
  const earlier = [dir.meta.code, ...dir.writers().map((w) => w.code)].filter((c): c is CodeVersion => c !== undefined);
  const other = earlier.filter((c) => c.version !== code.version || c.commit !== code.commit);
  if (other.length) {
    const labels = [...new Set(other.map(codeLabel))];
    warn(
      `warning: this run was written by hexa ${labels.join(", ")}; this process is hexa ${codeLabel(code)}. The run will mix code versions (each writer is listed in ${dir.file("writers")}); start a new run if its numbers must come from one version`,
    );
  }
};

const once = <T>(read: () => T) => {
  let value: T | undefined;
  return () => (value ??= read());
};

/** The run's offline inputs (trajectories, shipped banks), each read at most once. */
const offlineInputs = (cfg: RunConfig, family: LevelFamily, note: (line: string) => void): Pick<RunPlan, "offline" | "shipped"> => {
  const fromFiles = usesBank(cfg) && cfg.init !== "online";
  const { trajectories, banks } = cfg.offline;
  const caps = { skills: cfg.bank.maxSkills, mistakes: cfg.bank.maxMistakes };
  return {
    ...(fromFiles && trajectories ? { offline: once(() => readOfflineTrajectories(trajectories)) } : {}),
    ...(fromFiles && banks ? { shipped: once(() => readShippedBanks(banks, { payload: family.heuristics?.payload, caps, note })) } : {}),
  };
};

/** Reads and checks a new run's config or a resumed run's directory; everything that can be refused is refused here. */
export const planRun = (
  families: FamilyRegistry,
  source: { configPath?: string; resumeDir?: string },
  note: (line: string) => void,
  override?: FamilyOverride,
): RunPlan => {
  const existing = source.resumeDir ? RunDir.open(source.resumeDir) : undefined;
  const where = source.resumeDir ? `${source.resumeDir}/config.yaml` : (source.configPath ?? "");
  const cfg = existing ? runDirConfig(families, existing, where, note) : readRunConfig(families, where);
  const checked = checkRunConfig(families, cfg, where);
  const family = override ? override(checked, cfg) : checked;
  const code = codeVersion();
  if (existing) warnIfOtherCode(existing, code, note);
  const recorded = existing?.bankLog({ repair: false });
  if (existing && recorded) checkRecordedBank(join(existing.path, "bank-events.jsonl"), recorded.events, family.heuristics?.payload);
  const inputs = offlineInputs(cfg, family, note);
  // A new run reads its input files now, so a bad one is refused before the directory exists or is written to;
  // so does a resume whose round 0 is unfinished (afterwards the run holds what it took from them).
  if (!recorded || cfg.levels.some((level) => !recorded.done.has(updateKey(level, 0)))) {
    const trajectories = inputs.offline?.();
    const banks = inputs.shipped?.();
    checkOfflineInputs(cfg, family, { ...(trajectories ? { trajectories } : {}), ...(banks ? { banks } : {}) });
  }
  const startedAt = new Date();
  const search = family.search?.searchFor(cfg);
  return {
    cfg,
    where,
    family,
    ...(existing ? { existing } : {}),
    code,
    id: existing?.meta.id ?? runIdOf(cfg, checked, startedAt),
    startedAt,
    ...(search ? { search } : {}),
    ...inputs,
  };
};
