import { episodeId, updateKey } from "../store/run-dir.ts";
import { playBatch } from "./episode-step.ts";
import { updateLevel } from "./level-update.ts";
import type { LoopContext } from "./loop-context.ts";
import { offlineFromFiles, shipBank } from "./offline-inputs.ts";
import { lostFileRecords, refetchOffline } from "./resume-repair.ts";
import { usesBank } from "./run-config.ts";
import { filesSlot } from "./run-order.ts";

const nothing = () => undefined;

/**
 * A level's round 0: its offline episodes (played, or read from files and recorded here) distilled into the
 * initial bank, or a shipped bank; a committed round 0 only restores records a resume found lost.
 */
const roundZero = async (ctx: LoopContext, level: string, lost: readonly string[]): Promise<void> => {
  const { cfg, state } = ctx;
  if (ctx.playsOffline.has(level)) await playBatch(ctx, level, 0);
  if (ctx.stopping()) return;
  const noFiles = () => ctx.writes.fill(filesSlot(level), nothing);
  if (state.done.has(updateKey(level, 0))) {
    await (!ctx.playsOffline.has(level) && lostFileRecords(lost, level) ? refetchOffline(ctx, level, lost) : noFiles());
    return updateLevel(ctx, level, 0, []);
  }
  if (!usesBank(cfg) || cfg.init === "online") {
    await noFiles();
    return updateLevel(ctx, level, 0, []);
  }
  if (cfg.offline.banks) {
    await noFiles();
    return shipBank(ctx, level);
  }
  if (cfg.offline.trajectories) return updateLevel(ctx, level, 0, await offlineFromFiles(ctx, level));
  await noFiles();
  const offline = ctx.plan.get(level)!.offline.map((seed) => state.records.get(episodeId("offline", level, 0, seed))!);
  return updateLevel(ctx, level, 0, offline);
};

/**
 * One level's whole run (docs/ARCHITECTURE.md §4, docs/spec/method.md §10): round 0, then R rounds of x episodes,
 * each followed by the level's bank update. A level's next round starts as soon as its own update is done (and
 * it is at most MAX_ROUNDS_AHEAD ahead of the slowest): no level reads another's bank, so levels advance
 * independently and share only the episode pool.
 */
export const runLevel = async (ctx: LoopContext, level: string, lost: readonly string[]): Promise<void> => {
  await roundZero(ctx, level, lost);
  if (ctx.stopping()) return;
  ctx.ahead.finish(level, 0);
  for (let round = 1; round <= ctx.cfg.rounds; round++) {
    await ctx.ahead.until(round, ctx.stopping);
    if (ctx.stopping()) return;
    ctx.roundOf.set(level, round);
    await playBatch(ctx, level, round);
    if (ctx.stopping()) return;
    const batch = ctx.plan.get(level)!.rounds[round - 1]!.map((seed) => ctx.state.records.get(episodeId("stream", level, round, seed))!);
    await updateLevel(ctx, level, round, batch);
    if (ctx.stopping()) return;
    ctx.ahead.finish(level, round);
  }
};
