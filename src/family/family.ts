import type { z } from "zod";
import type { FamilyWords } from "./family-words.ts";
import type { TaskEnv } from "./task-env.ts";
import type { ChecksCapability, HeuristicsCapability, RecordsCapability, SearchCapability } from "./capabilities.ts";
import type { RunConfig } from "../loop/run-config.ts";
import type { EpisodeDrawer } from "../report/inspect/model.ts";

/** One task of a family: a level at a seed. */
export interface Task {
  level: string;
  seed: number;
  /** Units of the family's run budget this episode may spend (reward search: trainings), from `search.allowanceOf`; absent: no budget. */
  allowance?: number;
}

/**
 * The seam between the generic method and a level family (docs/ARCHITECTURE.md §3). The core — levels and their
 * seeds, the action's schema, the words of the prompts, the config slice and `openEnv` — is all the loop, the
 * bank, the evolver, the retriever and the LLM agents (ReAct actor, Direct, Reflexion) need. The rest are optional
 * capabilities (src/family/capabilities.ts), each a named sub-object the family provides whole or not at all;
 * src/family/check-family.ts checks a family against this contract.
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
  /** The action an episode commits (Trajectory.action), validated by this schema. */
  action: z.ZodType;
  words: FamilyWords;
  /**
   * The family's slice of RunConfig, under `key` (e.g. `interphyre: {horizon, toolSet}`); every field defaulted.
   * `upgrade` moves keys an older hexa wrote in the slice to where they live now, so old run directories resume.
   */
  config: { key: string; schema: z.ZodObject; upgrade?: (raw: Record<string, unknown>) => Record<string, unknown> };
  /** A fresh instance of a task for a generic agent: its prompt text, tools and finish rule. */
  openEnv(task: Task, config: RunConfig, maxTurns: number): Promise<TaskEnv>;

  /** The non-LLM agent, evolver and synthesiser; absent: the LLM ones only. */
  heuristics?: HeuristicsCapability;
  /** A run-wide budget: whole searches, each episode's share, final figures; absent: rounds only, no budget. */
  search?: SearchCapability;
  /** Checks beyond the core's schemas (a worker's trajectory, the transfer audit's names, the config, the start). */
  checks?: ChecksCapability;
  /** The record of work done outside the run's files, kept in the run for its replay; absent: nothing to keep. */
  records?: RecordsCapability;
  /** Pictures of an episode for `hexa inspect` (the scene, the rollout); absent: the action as text. */
  drawer?(): EpisodeDrawer;
  /** Releases what the family started (trainer processes, workers); the CLI calls it when a command ends. */
  close?(): Promise<void>;
}

/** The family's config slice as parsed (defaults applied) from a run config. */
export const familyConfig = <S extends z.ZodObject>(config: RunConfig, slice: { key: string; schema: S }): z.infer<S> =>
  slice.schema.parse((config as Record<string, unknown>)[slice.key] ?? {});
