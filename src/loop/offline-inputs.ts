import { event } from "../../agents/evolver-labels.ts";
import { ConfigError, InvariantError } from "../errors.ts";
import type { LevelFamily } from "../family/family.ts";
import type { Bank } from "../store/bank.ts";
import type { Trajectory } from "../store/trajectory.ts";
import type { EpisodeRecord } from "../store/run-records.ts";
import { episodeRecord } from "./episode-record.ts";
import { commitUpdate } from "./level-update.ts";
import type { LoopContext } from "./loop-context.ts";
import type { RunConfig } from "./run-config.ts";
import { filesSlot } from "./run-order.ts";
import { scheduleLevel } from "./schedule.ts";

/** Round 0's inputs from files (docs/spec/method.md §10): earlier trajectories, or a shipped bank. */

/** Which offline input a config reads: a shipped bank or earlier trajectories, by their config key. */
type OfflineInput = "banks" | "trajectories";

const noInput = (cfg: RunConfig, level: string, what: OfflineInput) =>
  new ConfigError(
    `offline.${what}: no ${what === "banks" ? "bank" : "trajectories"} for ${level} in ${JSON.stringify(cfg.offline[what])}; add a file for it or drop the level`,
  );

const seedRange = (seeds: readonly number[]): string => {
  const sorted = [...seeds].sort((a, b) => a - b);
  return sorted.length > 1 ? `${sorted[0]}–${sorted.at(-1)}` : String(sorted[0]);
};

/** The first seeds.offset (an index into the level's vetted seeds) whose stream starts after every seed given. */
const offsetPast = (vetted: readonly number[], seeds: readonly number[]): number => Math.max(...seeds.map((seed) => vetted.indexOf(seed))) + 1;

/**
 * An offline input learned on seeds this run's stream plays is refused (docs/spec/method.md §10: the stream must be
 * unseen), naming both sides: the input's seeds and the stream's (seeds.offset and the rounds).
 */
const refuseStreamSeeds = (cfg: RunConfig, family: LevelFamily, level: string, seeds: readonly number[], what: OfflineInput) => {
  const streamSeeds = scheduleLevel(cfg, family, level).rounds.flat();
  const stream = new Set(streamSeeds);
  const overlap = [...new Set(seeds.filter((seed) => stream.has(seed)))].sort((a, b) => a - b);
  if (overlap.length)
    throw new ConfigError(
      `offline.${what}: ${level}'s ${what === "banks" ? "bank was learned" : "trajectories were played"} on seeds ${overlap.join(", ")}, which this run's stream also plays (seeds.offset ${cfg.seeds.offset}: stream seeds ${seedRange(streamSeeds)}); raise seeds.offset to ${offsetPast(family.seedsOf(level), seeds)} or more, or use ${what} of other seeds`,
    );
};

/** A run's offline inputs as read from their files, per level. */
export interface OfflineInputs {
  trajectories?: ReadonlyMap<string, readonly Trajectory[]>;
  banks?: ReadonlyMap<string, Bank>;
}

/**
 * Everything about a run's offline inputs that can be known from the config and the files, checked before the run
 * writes anything: each level has its input, and none was learned on a seed of the run's stream.
 */
export const checkOfflineInputs = (cfg: RunConfig, family: LevelFamily, inputs: OfflineInputs, levels: readonly string[] = cfg.levels): void => {
  for (const level of levels) {
    if (inputs.banks) {
      const bank = inputs.banks.get(level);
      if (!bank) throw noInput(cfg, level, "banks");
      refuseStreamSeeds(
        cfg,
        family,
        level,
        [...bank.skills, ...bank.mistakes].flatMap((e) => e.sourceSeeds),
        "banks",
      );
    }
    if (inputs.trajectories) {
      const given = inputs.trajectories.get(level) ?? [];
      if (!given.length) throw noInput(cfg, level, "trajectories");
      refuseStreamSeeds(
        cfg,
        family,
        level,
        given.map((t) => t.seed),
        "trajectories",
      );
    }
  }
};

/**
 * A level's offline trajectories read from files, as records; those the run lacks are recorded and written (in
 * the level's files slot), so the bank's evidence ids point at records here and a resume never needs the files.
 */
export const offlineFromFiles = async (ctx: LoopContext, level: string): Promise<EpisodeRecord[]> => {
  const given = ctx.ports.offlineTrajectories?.(level) ?? [];
  checkOfflineInputs(ctx.cfg, ctx.ports.family, { trajectories: new Map([[level, given]]) }, [level]);
  const recs = given.map((trajectory, i) =>
    episodeRecord({
      id: `offline/${level}/file${i + 1}/s${trajectory.seed}`,
      phase: "offline",
      level,
      round: 0,
      seed: trajectory.seed,
      bankRound: null,
      retrieved: [],
      trajectory,
    }),
  );
  const fresh = recs.filter((x) => !ctx.state.records.has(x.id));
  for (const rec of fresh) ctx.state.record(rec);
  await ctx.writes.fill(filesSlot(level), () => fresh.forEach((rec) => ctx.ports.dir.appendEpisode(rec)));
  return recs;
};

/** A shipped bank enters as add events under ids of its own, so the log stays the whole record. */
export const shipBank = (ctx: LoopContext, level: string): Promise<void> => {
  const bank = ctx.ports.shippedBank?.(level);
  checkOfflineInputs(ctx.cfg, ctx.ports.family, { banks: new Map(bank ? [[level, bank]] : []) }, [level]);
  if (!bank) throw new InvariantError(`offline.banks: ${level} passed the check without a bank`);
  const entries = [...bank.skills, ...bank.mistakes];
  // Renamed so that no id minted in this run (s<round>_<k>) can collide with one from the shipping run.
  const rename = (id: string) => `shipped_${id}`;
  const out = entries.map((entry) =>
    event({
      schemaVersion: 1,
      type: "add",
      round: 0,
      entry: { ...entry, id: rename(entry.id), parents: entry.parents.map(rename), generation: 0 },
      reason: "shipped bank",
    }),
  );
  // Lessons keep their tier and tier history (docs/spec/method.md §3.1): a retired one still shows why.
  const lessons = (bank.lessons ?? []).map((entry) =>
    event({
      schemaVersion: 1,
      type: "lesson_added",
      round: 0,
      entry: { ...entry, id: rename(entry.id), parents: entry.parents.map(rename) },
      reason: "shipped bank",
    }),
  );
  return commitUpdate(ctx, level, 0, [...out, ...lessons], 0, false);
};
