import { ConfigError } from "../errors.ts";
import type { LevelFamily } from "./family.ts";
import type { RunConfig } from "./run-config.ts";
import { usesBank } from "./run-config.ts";

/**
 * Which seeds each phase plays, cut from the family's vetted list in order: the stream takes
 * [offset, offset + R·x), the offline trajectories the next `offline.episodes`, held-out evaluation what
 * follows. Disjoint by construction, and the same config pairs seeds across methods.
 */
export interface LevelSchedule {
  /** rounds[r - 1]: the seeds of round r. */
  rounds: number[][];
  offline: number[];
  /** Seeds left for held-out evaluation, in order. */
  heldOut: number[];
  /** Every seed the run learns from (stream and offline). */
  seen: Set<number>;
}

export const needsOfflineRuns = (c: RunConfig): boolean =>
  usesBank(c) && c.init !== "online" && c.offline.trajectories === undefined && c.offline.banks === undefined;

export const scheduleLevel = (c: RunConfig, family: LevelFamily, level: string): LevelSchedule => {
  family.checkLevel(level);
  const all = family.seedsOf(level);
  const stream = c.rounds * c.episodesPerRound;
  const offline = needsOfflineRuns(c) ? c.offline.episodes : 0;
  const need = c.seeds.offset + stream + offline;
  if (all.length < need) {
    throw new ConfigError(
      `levels: ${level} has ${all.length} vetted seeds, the run needs ${need} (offset ${c.seeds.offset} + ${c.rounds} rounds × ${c.episodesPerRound} + ${offline} offline); lower rounds or episodesPerRound, or certify more seeds (hexa levels certify ${level} --seeds ${need})`,
    );
  }
  const start = c.seeds.offset;
  const rounds = Array.from({ length: c.rounds }, (_, r) => all.slice(start + r * c.episodesPerRound, start + (r + 1) * c.episodesPerRound));
  const off = all.slice(start + stream, start + stream + offline);
  return { rounds, offline: off, heldOut: [...all.slice(start + stream + offline), ...all.slice(0, start)], seen: new Set([...rounds.flat(), ...off]) };
};

export const schedule = (c: RunConfig, family: LevelFamily): Map<string, LevelSchedule> => {
  const dup = c.levels.find((l, i) => c.levels.indexOf(l) !== i);
  if (dup) throw new ConfigError(`levels: ${dup} is listed twice; list each level once`);
  return new Map(c.levels.map((l) => [l, scheduleLevel(c, family, l)]));
};
