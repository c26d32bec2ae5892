import type { UserMiddleware } from "../../agents/user-middleware.ts";
import type { RoleModel } from "../llm/ask.ts";
import type { LevelFamily } from "../family/family.ts";
import type { Bank, BankEvent } from "../store/bank.ts";
import type { RunDir } from "../store/run-dir.ts";
import type { Phase } from "../store/run-records.ts";
import type { Trajectory } from "../store/trajectory.ts";
import type { EpisodeBackend } from "./episode-backend.ts";

export interface Progress {
  phase: Phase;
  /** The round of the episode just recorded (levels advance independently, docs/ARCHITECTURE.md §4); at a start, the furthest recorded; 0 offline. */
  round: number;
  /** The level of the episode just recorded; absent at a start. */
  level?: string;
  done: number;
  total: number;
  successes: number;
  tokens: number;
  costUsd: number;
}

/** What the round loop is given (docs/spec/style.md §6): its family, run directory, models, clock and signal. */
export interface LoopPorts {
  family: LevelFamily;
  dir: RunDir;
  actorModel?: RoleModel;
  /** The user's langchain middleware (HEXA_MIDDLEWARE), after hexa's, in every episode the actor model plays here. */
  actorMiddleware?: UserMiddleware;
  evolverModel?: RoleModel;
  /** A level's shipped round-0 bank when `offline.banks` is set (asked only while round 0 is not committed). */
  shippedBank?: (level: string) => Bank | undefined;
  /** A level's earlier trajectories when `offline.trajectories` is set (asked only while round 0 is not committed). */
  offlineTrajectories?: (level: string) => Trajectory[];
  now: () => number;
  onProgress?: (p: Progress) => void;
  log?: (line: string) => void;
  /**
   * After each round's updates, with every level's committed events of rounds ≤ that round (e.g. to refresh the
   * Chroma index); called in round order, once every level has finished the round.
   */
  afterRound?: (round: number, events: ReadonlyMap<string, readonly BankEvent[]>) => Promise<void>;
  /**
   * Ctrl-C: once aborted, no episode or update starts; those in flight finish and are recorded, then the loop
   * rejects with the signal's reason. The loop yields to the event loop after every episode, so a signal is
   * seen even while synchronous (heuristic) episodes run back to back.
   */
  signal?: AbortSignal;
  /** Where episodes are played (docs/ARCHITECTURE.md §7); unset: in this process (the local backend over actorModel). */
  episodes?: EpisodeBackend;
}
