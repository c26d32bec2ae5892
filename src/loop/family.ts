import type { z } from "zod";
import type { Labelled } from "../../agents/evolver-labels.ts";
import type { FamilyWords } from "../../agents/family-words.ts";
import type { TaskEnv, ToolProgress } from "../../agents/task-env.ts";
import type { Trajectory, TrajectoryStep } from "../store/trajectory.ts";
import type { Bank, BankEntry, BankEvent } from "../store/bank.ts";
import type { FinalScore } from "../store/final-scores.ts";
import type { EpisodeRecord } from "../store/run-records.ts";
import type { ChatModel } from "../llm/chat-model.ts";
import type { RunConfig } from "./run-config.ts";

/** One task of a family: a level at a seed. */
export interface Task {
  level: string;
  seed: number;
}

/** What the family's heuristic (non-LLM) agent gets for one episode. */
export interface HeuristicPlayRequest {
  task: Task;
  config: RunConfig;
  /** The retriever's top-M / top-N of the level's bank (empty without one): the heuristic reads its payloads. */
  shown: Bank;
  now: () => number;
  onStep?: (step: TrajectoryStep) => void;
  onToolProgress?: (p: ToolProgress) => void;
}

export interface HeuristicEvolveRequest {
  round: number;
  level: string;
  bank: Bank;
  labelled: readonly Labelled[];
  caps: { skills: number; mistakes: number };
}

export interface HeuristicSynthesisRequest {
  target: string;
  sources: readonly { level: string; bank: Bank }[];
}

/** Synthesised entries (ids fresh, sourceType "transfer") and, per entry, the (level, id) source entries it cites. */
export interface HeuristicSynthesis {
  entries: BankEntry[];
  citations: Record<string, { level: string; id: string }[]>;
}

/** A whole search that replaces the round loop for a config (issue 13: reward search's eureka and rf-agent). */
export interface FamilySearch {
  /** One line for the run's start, e.g. "eureka: 16 candidates per task". */
  label: string;
  /** Runs, or resumes, the search of every level of the config, writing its records under `dir` (the run directory). */
  run(req: { dir: string; actorModel?: ChatModel; log: (line: string) => void; signal?: AbortSignal }): Promise<void>;
}

/** What a family's final scoring reads of a finished run. */
export interface FinalScoreRequest {
  config: RunConfig;
  dir: string;
  /** The run's episodes (none for a whole search). */
  episodes: readonly EpisodeRecord[];
}

/**
 * The seam between the generic method and a level family (issue 10 §1). The loop, the bank, the evolver, the
 * retriever and the LLM agents (ReAct actor, Direct, Reflexion) know only this: a family supplies its levels
 * and seeds, the factual description, its action's schema and renderer, its tools (through `openEnv`), the
 * domain words of the prompts, its slice of the run config, and optionally its non-LLM agent and evolver.
 */
export interface LevelFamily {
  id: string;
  /** One line for listings and errors. */
  title: string;
  listLevels(): string[];
  /** Throws a ConfigError naming the level and the known ones. */
  checkLevel(level: string): void;
  /** The family's vetted seeds of a level, in a fixed order (the stream, offline and held-out sets are cut from it). */
  seedsOf(level: string): number[];
  /** The factual description shown to evolvers and synthesisers. */
  describe(level: string): string;
  /** The names of the things a level's text may speak of (scene objects, observation fields): the transfer audit's object check; absent: skipped. */
  objectsOf?(level: string): string[];
  /** The action an episode commits (Trajectory.action), validated by this schema. */
  action: z.ZodType;
  words: FamilyWords;
  /** The family's slice of RunConfig, under `key` (e.g. `interphyre: {horizon, toolSet}`); every field defaulted. */
  config: { key: string; schema: z.ZodObject };
  /** A fresh instance of a task for a generic agent: its prompt text, tools and finish rule. */
  openEnv(task: Task, config: RunConfig, maxTurns: number): Promise<TaskEnv>;
  /** The non-LLM agent (agent: heuristic), labelled as such in its trajectories; absent when the family has none. */
  playHeuristic?(req: HeuristicPlayRequest): Promise<Trajectory>;
  /** The heuristic evolver's update (same contract as the LLM evolver); absent when the family has none. */
  evolveHeuristic?(o: HeuristicEvolveRequest): BankEvent[];
  /**
   * The non-LLM transfer synthesiser (issue 11, method.md §6): source banks (with their levels) and the target
   * level → the target bank's entries, each citing the source entries it maps (level, id). Absent when the
   * family has none; the LLM synthesiser (agents/) works for every family.
   */
  synthesiseHeuristic?(o: HeuristicSynthesisRequest): HeuristicSynthesis;
  /** The whole search this config asks for instead of rounds (hexa run runs it in the run directory); absent or undefined: the round loop. */
  searchFor?(config: RunConfig): FamilySearch | undefined;
  /** Each level's final figure after a run's rounds or search (hexa run writes final-scores.json); undefined: the config asks for none. */
  finalScores?(req: FinalScoreRequest): Promise<FinalScore[] | undefined>;
  /** Releases what the family started (trainer processes, workers); the CLI calls it when a command ends. */
  close?(): Promise<void>;
}

/** The family's config slice as parsed (defaults applied) from a run config. */
export const familyConfig = <S extends z.ZodObject>(config: RunConfig, slice: { key: string; schema: S }): z.infer<S> =>
  slice.schema.parse((config as Record<string, unknown>)[slice.key] ?? {});
