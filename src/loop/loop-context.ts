import { updateKey } from "../store/run-dir.ts";
import type { EpisodeRecord, Phase, UsageLine } from "../store/run-records.ts";
import { localBackend, type EpisodeBackend } from "./episode-backend.ts";
import { EpisodePool } from "./episode-pool.ts";
import { HeldWork } from "./held-work.ts";
import type { LoopPorts } from "./loop-ports.ts";
import { OrderedWrites } from "./ordered-writes.ts";
import { RunAhead } from "./run-ahead.ts";
import { usesBank, type RunConfig } from "./run-config.ts";
import { runSlots } from "./run-order.ts";
import { RunState } from "./run-state.ts";
import { needsOfflineRuns, schedule, type LevelSchedule } from "./schedule.ts";

/** What every step of the round loop shares: the run's config and ports, its state, its pool and its ordered writes. */
export interface LoopContext {
  cfg: RunConfig;
  ports: LoopPorts;
  plan: ReadonlyMap<string, LevelSchedule>;
  state: RunState;
  writes: OrderedWrites;
  pool: EpisodePool;
  episodes: EpisodeBackend;
  /** Levels whose offline episodes are played here: for their round-0 update, or again to restore their records. */
  playsOffline: ReadonlySet<string>;
  /** Each level's round in play (0: offline; cfg.rounds once done): the progress line shows the lowest. */
  roundOf: Map<string, number>;
  /** Holds a level that is too far ahead of the slowest. */
  ahead: RunAhead;
  /** Finished episodes spooled while they wait for the run's order, and those an earlier process left. */
  held: HeldWork;
  /** Each level's mean episode time in its last played batch: what the pool orders by. */
  expectedMs: Map<string, number>;
  onUsage: (line: UsageLine) => void;
  /** After each recorded episode (given), and once at the start. */
  progress: (recorded?: EpisodeRecord) => void;
  /** Once true (a signal, or a failure in any level), no episode or update starts. */
  stopping: () => boolean;
  /** Records the first failure; every level then stops at its next step. */
  fail: (error: unknown) => void;
  /** The first failure, if any. */
  failure: () => { error: unknown } | undefined;
}

const levelPlaysOffline = (cfg: RunConfig, state: RunState, level: string) =>
  state.done.has(updateKey(level, 0)) ? needsOfflineRuns(cfg) : usesBank(cfg) && cfg.init !== "online" && !cfg.offline.banks && !cfg.offline.trajectories;

/** Where the run stands: the episode just recorded, else (a start or resume) the furthest one recorded; offline with none. */
const standing = (played: readonly EpisodeRecord[], last: EpisodeRecord | undefined): { phase: Phase; round: number; level?: string } => {
  const at = last ?? played.reduce<EpisodeRecord | undefined>((a, e) => (e.phase === "stream" && (!a || e.round > a.round) ? e : a), undefined);
  const level = last ? { level: last.level } : {};
  return at?.phase === "stream" ? { phase: "stream", round: at.round, ...level } : { phase: "offline", round: 0, ...level };
};

const progressOf = (cfg: RunConfig, ports: LoopPorts, plan: ReadonlyMap<string, LevelSchedule>, state: RunState) => {
  const total = cfg.levels.reduce((n, l) => n + plan.get(l)!.offline.length + plan.get(l)!.rounds.flat().length, 0);
  return (last?: EpisodeRecord) => {
    const played = [...state.records.values()].filter((e) => e.phase !== "eval");
    ports.onProgress?.({
      ...standing(played, last),
      done: played.length,
      total,
      successes: played.filter((e) => e.phase === "stream" && e.trajectory.success).length,
      tokens: state.usage.reduce((s, u) => s + u.input + u.output, 0),
      costUsd: state.usage.reduce((s, u) => s + u.costUsd, 0),
    });
  };
};

/** The loop's context for `cfg` over the run directory in `ports`, read as it stands (a resume reads what is there). */
export const openLoop = (cfg: RunConfig, ports: LoopPorts): LoopContext => {
  const plan = schedule(cfg, ports.family);
  const state = new RunState(cfg.levels, ports.dir, ports.log);
  const playsOffline = new Set(cfg.levels.filter((l) => levelPlaysOffline(cfg, state, l)));
  const roundOf = new Map(cfg.levels.map((l) => [l, 0] as const));
  const expectedMs = new Map<string, number>();
  const { family, actorModel, actorMiddleware, now } = ports;
  const episodes = ports.episodes ?? localBackend(cfg, { family, ...(actorModel ? { actorModel } : {}), ...(actorMiddleware ? { actorMiddleware } : {}), now });
  let failed: { error: unknown } | undefined;
  const ahead = new RunAhead(cfg.levels);
  ports.signal?.addEventListener("abort", () => ahead.wake(), { once: true });
  return {
    cfg,
    ports,
    plan,
    state,
    writes: new OrderedWrites(runSlots(cfg, plan, playsOffline)),
    pool: new EpisodePool(episodes.inFlight ?? cfg.concurrency, (l) => expectedMs.get(l) ?? 0, cfg.levels),
    episodes,
    playsOffline,
    roundOf,
    ahead,
    held: new HeldWork(ports.dir.held, state.records, ports.log ?? (() => undefined)),
    expectedMs,
    onUsage: (line) => {
      state.usage.push(line);
      ports.dir.appendUsage(line);
    },
    progress: progressOf(cfg, ports, plan, state),
    stopping: () => failed !== undefined || ports.signal?.aborted === true,
    fail: (error) => {
      failed ??= { error };
      ahead.wake();
    },
    failure: () => failed,
  };
};
