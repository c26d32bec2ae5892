import { ConfigError } from "../errors.ts";
import type { LevelFamily } from "../family/family.ts";
import type { RunConfig } from "./run-config.ts";
import { usesBank } from "./run-config.ts";

/**
 * Which seeds each phase plays, cut from the family's vetted list in order: the stream takes
 * [offset, offset + R·x), the next `offline.episodes` are reserved for offline trajectories (played or not, so
 * held-out seeds are the same for every method compared on one offset), and held-out evaluation takes what
 * follows. Seeds before the offset are never held out: an earlier run or a shipped bank may have learned on them.
 */
export interface LevelSchedule {
  /** rounds[r - 1]: the seeds of round r. */
  rounds: number[][];
  offline: number[];
  /** Seeds for held-out evaluation, in order: after the stream and the offline block. */
  heldOut: number[];
  /** Every seed the run learns from (stream and offline). */
  seen: Set<number>;
}

export const needsOfflineRuns = (c: RunConfig): boolean =>
  usesBank(c) && c.init !== "online" && c.offline.trajectories === undefined && c.offline.banks === undefined;

export const scheduleLevel = (c: RunConfig, family: LevelFamily, level: string): LevelSchedule => {
  try {
    family.checkLevel(level);
  } catch (e) {
    throw e instanceof ConfigError ? new ConfigError(`levels: ${e.message}`) : e;
  }
  const all = family.seedsOf(level);
  const stream = c.rounds * c.episodesPerRound;
  const offline = c.offline.episodes;
  const need = c.seeds.offset + stream + (needsOfflineRuns(c) ? offline : 0);
  if (all.length < need) {
    throw new ConfigError(
      `levels: ${level} has ${all.length} vetted seeds, the run needs ${need} (offset ${c.seeds.offset} + ${c.rounds} rounds × ${c.episodesPerRound} + ${offline} offline); lower rounds or episodesPerRound, or certify more seeds (hexa levels certify ${level} --seeds ${need})`,
    );
  }
  const start = c.seeds.offset;
  const rounds = Array.from({ length: c.rounds }, (_, r) => all.slice(start + r * c.episodesPerRound, start + (r + 1) * c.episodesPerRound));
  const off = needsOfflineRuns(c) ? all.slice(start + stream, start + stream + offline) : [];
  return { rounds, offline: off, heldOut: all.slice(start + stream + offline), seen: new Set([...rounds.flat(), ...off]) };
};

export const schedule = (c: RunConfig, family: LevelFamily): Map<string, LevelSchedule> => {
  const dup = c.levels.find((l, i) => c.levels.indexOf(l) !== i);
  if (dup) throw new ConfigError(`levels: ${dup} is listed twice; list each level once`);
  return new Map(c.levels.map((l) => [l, scheduleLevel(c, family, l)]));
};
