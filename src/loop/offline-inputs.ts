import { event } from "../../agents/evolver-labels.ts";
import { ConfigError } from "../errors.ts";
import type { EpisodeRecord } from "../store/run-records.ts";
import { episodeRecord } from "./episode-record.ts";
import { commitUpdate } from "./level-update.ts";
import type { LoopContext } from "./loop-context.ts";
import { filesSlot } from "./run-order.ts";

/** Round 0's inputs from files (docs/spec/method.md §10): earlier trajectories, or a shipped bank. */

const noBank = (ctx: LoopContext, level: string) =>
  new ConfigError(
    `offline: no ${ctx.cfg.offline.banks ? "bank" : "trajectories"} for ${level} in ${JSON.stringify(ctx.cfg.offline.banks ?? ctx.cfg.offline.trajectories)}; add a file for it or drop the level`,
  );

const refuseStreamSeeds = (ctx: LoopContext, level: string, seeds: readonly number[], what: string) => {
  const stream = new Set(ctx.plan.get(level)!.rounds.flat());
  const overlap = [...new Set(seeds.filter((seed) => stream.has(seed)))];
  if (overlap.length)
    throw new ConfigError(
      `offline.${what}: ${level}'s seeds ${overlap.join(", ")} are also in this run's stream; use ones learned on other seeds or raise seeds.offset past them`,
    );
};

/**
 * A level's offline trajectories read from files, as records; those the run lacks are recorded and written (in
 * the level's files slot), so the bank's evidence ids point at records here and a resume never needs the files.
 */
export const offlineFromFiles = async (ctx: LoopContext, level: string): Promise<EpisodeRecord[]> => {
  const given = ctx.ports.offlineTrajectories?.(level) ?? [];
  if (given.length === 0) throw noBank(ctx, level);
  refuseStreamSeeds(
    ctx,
    level,
    given.map((t) => t.seed),
    "trajectories",
  );
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
  if (!bank) throw noBank(ctx, level);
  const entries = [...bank.skills, ...bank.mistakes];
  refuseStreamSeeds(
    ctx,
    level,
    entries.flatMap((e) => e.sourceSeeds),
    "banks",
  );
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
  return commitUpdate(ctx, level, 0, out, 0, false);
};
