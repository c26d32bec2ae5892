import { episodeId, updateKey } from "../store/run-dir.ts";
import type { RunConfig } from "./run-config.ts";
import type { LevelSchedule } from "./schedule.ts";

/** The slot of the records a level's round 0 reads from offline.trajectories files (written before its update). */
export const filesSlot = (level: string) => `files:${level}`;
export const updateSlot = (level: string, round: number) => `update:${updateKey(level, round)}`;
/** A round's snapshot, metrics and afterRound: due once every level's episodes and update of the round are written. */
export const roundSlot = (round: number) => `round:${round}`;
export const isRoundSlot = (key: string) => key.startsWith("round:");

/**
 * The order in which a run writes its files (docs/ARCHITECTURE.md §4), as a sequential run writes them: the
 * offline episodes of every level that plays them, each level's round 0 (records read from files, then the
 * update), the round-0 snapshot; then per round every level's episodes in seed order, every level's update, and
 * the round's snapshot and metrics. Episodes are keyed by their id.
 */
export const runSlots = (cfg: RunConfig, plan: ReadonlyMap<string, LevelSchedule>, playsOffline: ReadonlySet<string>): string[] => {
  const seedsOf = (level: string) => plan.get(level)!;
  const offline = cfg.levels.filter((l) => playsOffline.has(l)).flatMap((level) => seedsOf(level).offline.map((seed) => episodeId("offline", level, 0, seed)));
  const rounds = Array.from({ length: cfg.rounds }, (_, i) => i + 1).flatMap((round) => [
    ...cfg.levels.flatMap((level) => seedsOf(level).rounds[round - 1]!.map((seed) => episodeId("stream", level, round, seed))),
    ...cfg.levels.map((level) => updateSlot(level, round)),
    roundSlot(round),
  ]);
  return [...offline, ...cfg.levels.flatMap((level) => [filesSlot(level), updateSlot(level, 0)]), roundSlot(0), ...rounds];
};
