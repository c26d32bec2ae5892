import { EMPTY_BANK } from "../store/bank.ts";
import { episodeId } from "../store/run-dir.ts";
import type { EpisodeRecord } from "../store/run-records.ts";
import { mean } from "../util/stats.ts";
import type { EpisodeJob } from "./episode-backend.ts";
import { endpointFailed, episodeRecord } from "./episode-record.ts";
import type { LoopContext } from "./loop-context.ts";

/** An episode as the loop schedules it; its id, bank and allowance are made when it plays. */
type Job = Omit<EpisodeJob, "id" | "bank" | "allowance">;

const nothing = () => undefined;

/** The family's share of a run-wide budget for the episode, from what the level's earlier phases recorded. */
const allowanceOf = (ctx: LoopContext, job: Job): number | undefined => {
  const { family } = ctx.ports;
  const allowance = family.search?.allowanceOf;
  if (!allowance) return undefined;
  const before = (e: EpisodeRecord) => e.level === job.level && (e.phase === "offline" || (e.phase === "stream" && e.round < job.round));
  const earlier = job.phase === "stream" ? [...ctx.state.records.values()].filter(before) : [];
  return allowance({ config: ctx.cfg, level: job.level, seed: job.seed, phases: ctx.plan.get(job.level)!, earlier });
};

/** Plays a job in the backend: its record, or the endpoint's failure. */
const playFresh = async (ctx: LoopContext, job: EpisodeJob): Promise<EpisodeRecord> => {
  const { trajectory, retrieved } = await ctx.episodes.play(job, ctx.onUsage);
  if (trajectory.stopReason === "error") throw endpointFailed(job.id, trajectory.error, ctx.ports.dir.path);
  const { id, phase, level, round, seed, bankRound } = job;
  return episodeRecord({ id, phase, level, round, seed, bankRound, retrieved, trajectory });
};

/**
 * Plays one episode unless it is recorded or the run is stopping (a resume takes it from the spool when an earlier
 * process played it under the same job); its record is written in the run's order, and spooled while it waits.
 */
const playJob = async (ctx: LoopContext, job: Job): Promise<void> => {
  const id = episodeId(job.phase, job.level, job.round, job.seed);
  if (ctx.state.records.has(id)) return ctx.writes.fill(id, nothing);
  if (ctx.stopping()) return;
  const bank = job.bankRound === null ? EMPTY_BANK : ctx.state.bankAt(job.level, job.bankRound);
  const allowance = allowanceOf(ctx, job);
  const full: EpisodeJob = { id, ...job, bank, ...(allowance === undefined ? {} : { allowance }) };
  const held = ctx.held.take(full);
  const rec = held?.record ?? (await playFresh(ctx, full));
  ctx.state.record(rec);
  if (ctx.writes.waits(id)) ctx.held.keep(full, rec);
  const written = ctx.writes.fill(id, () => {
    ctx.ports.dir.appendEpisode(held?.line ?? rec);
    ctx.held.written(id);
  });
  ctx.progress(rec);
  await written;
};

/**
 * A level's batch of a round (round 0: its offline episodes) through the shared pool; afterwards its mean
 * episode time is what the pool expects of the level's next batch.
 */
export const playBatch = async (ctx: LoopContext, level: string, round: number): Promise<void> => {
  const p = ctx.plan.get(level)!;
  const seeds = round === 0 ? p.offline : p.rounds[round - 1]!;
  const jobOf = (seed: number): Job =>
    round === 0
      ? { phase: "offline", level, round: 0, seed, agent: ctx.cfg.agent === "heuristic" ? "heuristic" : "react", bankRound: null }
      : { phase: "stream", level, round, seed, agent: ctx.cfg.agent, bankRound: round - 1 };
  await Promise.all(seeds.map((seed, index) => ctx.pool.run({ level, round, index }, () => playJob(ctx, jobOf(seed)))));
  const played = seeds.flatMap((seed) => ctx.state.records.get(episodeId(round === 0 ? "offline" : "stream", level, round, seed)) ?? []);
  if (played.length) ctx.expectedMs.set(level, mean(played.map((e) => e.trajectory.wallMs)));
};
