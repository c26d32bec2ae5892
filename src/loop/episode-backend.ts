import type { UserMiddleware } from "../../agents/user-middleware.ts";
import type { AssistantTurn } from "../llm/chat-model.ts";
import type { RoleModel } from "../llm/ask.ts";
import { usageRecord } from "../llm/accounting.ts";
import type { Role } from "../llm/config.ts";
import type { Bank } from "../store/bank.ts";
import type { Phase, UsageLine, UsagePhase } from "../store/run-records.ts";
import type { LevelFamily } from "../family/family.ts";
import { playEpisode, type EpisodeResult } from "./play.ts";
import type { RunAgent, RunConfig } from "./run-config.ts";

export type { EpisodeResult };

/** One episode the loop wants played: where it sits in the run, and the bank it must play with. */
export interface EpisodeJob {
  /** The episode id (run-dir.ts episodeId): unique in a run, the key a result is recorded under. */
  id: string;
  phase: Phase;
  level: string;
  round: number;
  seed: number;
  agent: RunAgent;
  bankRound: number | null;
  /** The bank snapshot the episode draws on (the fold of the log up to bankRound; empty when null). */
  bank: Bank;
  /** The episode's share of the run's budget (LevelFamily.search.allowanceOf); absent: none. */
  allowance?: number;
}

/**
 * Where the loop's episodes are played (docs/ARCHITECTURE.md §7): `local` plays them in this process; another backend (a job
 * queue, chosen by the CLI) plays them elsewhere. The loop stays the only writer of the run directory: a
 * backend hands back the trajectory and passes each model call's usage line to `onUsage` (as it is made, or
 * all at once with the result), and the loop records both.
 */
export interface EpisodeBackend {
  play(job: EpisodeJob, onUsage: (line: UsageLine) => void): Promise<EpisodeResult>;
  /** Most episodes the loop keeps in flight; unset: the config's `concurrency` (a job queue takes a whole round). */
  readonly inFlight?: number;
  close?(): Promise<void>;
}

/** A usage line of one model call, with where in the run it was made. */
export const usageLine = (
  role: Role,
  turn: AssistantTurn,
  where: { phase: UsagePhase; level: string; round: number; seed?: number; candidate?: number },
  cfg: RunConfig,
): UsageLine => ({
  schemaVersion: 1 as const,
  ...where,
  ...usageRecord(role, turn, cfg.llm.prices),
});

export interface LocalPlayPorts {
  family: LevelFamily;
  actorModel?: RoleModel;
  /** The user's middleware for the actor's agent (LoopPorts.actorMiddleware). */
  actorMiddleware?: UserMiddleware;
  now: () => number;
}

/** One episode in this process: what the local backend and a queue worker both run. */
export const playHere = async (cfg: RunConfig, job: EpisodeJob, ports: LocalPlayPorts, onUsage: (line: UsageLine) => void): Promise<EpisodeResult> => {
  const where = { phase: job.phase, level: job.level, round: job.round, seed: job.seed };
  const model =
    job.agent === "heuristic" || !ports.actorModel ? undefined : ports.actorModel.listening((turn) => onUsage(usageLine("actor", turn, where, cfg)));
  return playEpisode(ports.family, {
    task: { level: job.level, seed: job.seed, ...(job.allowance === undefined ? {} : { allowance: job.allowance }) },
    agent: job.agent,
    config: cfg,
    bank: job.bank,
    ...(model ? { model } : {}),
    ...(ports.actorMiddleware ? { middleware: ports.actorMiddleware } : {}),
    costOf: (turn) => usageRecord("actor", turn, cfg.llm.prices).costUsd,
    now: ports.now,
  });
};

/** The in-process backend: episodes play here, concurrently up to the loop's `concurrency`. */
export const localBackend = (cfg: RunConfig, ports: LocalPlayPorts): EpisodeBackend => ({
  play: (job, onUsage) => playHere(cfg, job, ports, onUsage),
});
