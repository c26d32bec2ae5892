import { foldEvents } from "../store/bank.ts";
import type { LoopContext } from "./loop-context.ts";
import { computeMetrics, type Metrics } from "./metrics.ts";

/** banks/round-NN.json: every level's bank after round NN, from the log (a resumed process rewrites earlier rounds' snapshots too). */
const writeSnapshot = (ctx: LoopContext, round: number): void => {
  ctx.ports.dir.writeSnapshot(round, Object.fromEntries(ctx.cfg.levels.map((l) => [l, foldEvents(ctx.state.eventsOf(l), round)])));
};

/**
 * metrics.json as the run stands once every level has finished round `round` (all rounds when omitted): a level
 * further ahead is counted only up to that round, and records are taken in the run's order.
 */
export const runMetrics = (ctx: LoopContext, round = Number.POSITIVE_INFINITY): Metrics => {
  const { cfg, state, writes } = ctx;
  const events = state.eventsAsOf(round);
  const later = (x: { phase: string; round: number }) => x.phase === "stream" && x.round > round;
  const episodes = [...state.records.values()].filter((e) => !later(e)).sort((a, b) => writes.rank(a.id) - writes.rank(b.id));
  // Each level's bank after every round, from the log (a resumed process has not seen the early rounds).
  const banks = new Map(cfg.levels.map((l) => [l, Array.from({ length: cfg.rounds + 1 }, (_, r) => foldEvents(events.get(l) ?? [], r))] as const));
  const usage = state.usage.filter((u) => !later(u));
  return computeMetrics({ runId: ctx.ports.dir.meta.id, config: cfg, episodes, usage, banks, bankMs: state.bankMs, events });
};

/** A round's end, once every level's episodes and update of the round are written: snapshot, metrics, afterRound. */
export const roundDone = (ctx: LoopContext, round: number) => async (): Promise<void> => {
  writeSnapshot(ctx, round);
  if (round === 0) return;
  ctx.ports.dir.writeMetrics(runMetrics(ctx, round));
  await ctx.ports.afterRound?.(round, ctx.state.eventsAsOf(round));
};
