import { InvariantError } from "../errors.ts";
import { runLevel } from "./level-rounds.ts";
import { openLoop } from "./loop-context.ts";
import type { LoopPorts } from "./loop-ports.ts";
import type { Metrics } from "./metrics.ts";
import { lostRecords, warnLost } from "./resume-repair.ts";
import type { RunConfig } from "./run-config.ts";
import { runMetrics, roundDone } from "./run-files.ts";
import { isRoundSlot, roundSlot } from "./run-order.ts";

export type { LoopPorts, Progress } from "./loop-ports.ts";

/**
 * The round loop (docs/ARCHITECTURE.md §4, docs/spec/method.md §10): per level, offline trajectories and the
 * round-0 distillation, then R rounds of x episodes with a bank update after each. Levels advance independently
 * over one bounded pool of episodes, and the files are written in the order a sequential run writes them, so the
 * run's files do not depend on the pool. Everything is derived from the run directory, so calling it again on the
 * same directory resumes: finished episodes and committed updates are skipped, an update cut short is redone.
 */
export const runLoop = async (cfg: RunConfig, ports: LoopPorts): Promise<Metrics> => {
  const ctx = openLoop(cfg, ports);
  const lost = lostRecords(ctx);
  warnLost(ctx, lost);
  // Due once every earlier slot is written; a failure there reaches whichever level's write let it through.
  for (let round = 0; round <= cfg.rounds; round++) ctx.writes.fill(roundSlot(round), roundDone(ctx, round)).catch(() => undefined);
  ctx.progress();
  await Promise.all(cfg.levels.map((level) => runLevel(ctx, level, lost).catch(ctx.fail)));
  await ctx.pool.idle();
  if (!ctx.failure()) await ctx.writes.flush().catch(ctx.fail);
  const failure = ctx.failure();
  if (failure || !ctx.writes.complete) {
    if (!failure && !ports.signal?.aborted) throw new InvariantError("run loop: every level finished, yet a write of the run is still due");
    // What finished is kept: every level's records and updates, in order, up to where it stopped.
    await ctx.writes.drain(isRoundSlot).catch((e: unknown) => {
      if (!failure) throw e;
    });
    ctx.held.tidy();
    throw failure ? failure.error : ports.signal!.reason;
  }
  ctx.held.finish();
  const metrics = runMetrics(ctx);
  ports.dir.writeMetrics(metrics);
  return metrics;
};
