import type { z } from "zod";
import type { Labelled } from "../../agents/evolver-labels.ts";
import type { LevelFamily, Task } from "./family.ts";
import type { ToolProgress } from "./task-env.ts";
import type { Trajectory, TrajectoryStep } from "../store/trajectory.ts";
import type { Bank, BankEntry, BankEvent } from "../store/bank.ts";
import type { FinalScore } from "../store/final-scores.ts";
import type { EpisodeRecord } from "../store/run-records.ts";
import type { AssistantTurn } from "../llm/chat-model.ts";
import type { RoleModel } from "../llm/ask.ts";
import type { RunConfig } from "../loop/run-config.ts";

/*
 * The optional capabilities of a level family (docs/ARCHITECTURE.md §3): what a family may provide beyond its core
 * (src/family/family.ts). Each is one named sub-object of LevelFamily; a family that declares one provides all of
 * its required parts (src/family/check-family.ts checks it).
 */

/** The seeds a level's phases play, as the run's schedule cuts them from `seedsOf` (src/loop/schedule.ts). */
export interface LevelPhases {
  offline: readonly number[];
  /** rounds[r - 1]: the seeds of round r. */
  rounds: readonly (readonly number[])[];
}

/** What a family's `search.allowanceOf` reads: the episode's place in the run and the level's episodes that finished before its phase. */
export interface AllowanceRequest {
  config: RunConfig;
  level: string;
  seed: number;
  /** The level's phases in the run's schedule. */
  phases: LevelPhases;
  /** The level's episodes of the phases before this one (offline before round 1, round r − 1 before r), in the run's records. */
  earlier: readonly EpisodeRecord[];
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

/** Where in a search a model call was made: usage.jsonl records it as phase `search`. */
export interface SearchCall {
  level: string;
  /** The seed of the instance the search works on. */
  seed: number;
  /** The candidate the call is for (its proposal, self-evaluation or thought alignment). */
  candidate?: number;
}

/** The model calls a search has still to make, for the cost forecast (docs/spec/method.md §11). */
export interface SearchCalls {
  /** Candidates still to propose, over every level (a resume: those the search's records lack). */
  candidates: number;
  /** One candidate's calls and tokens, estimated from the config and the prompts (when no earlier search was recorded). */
  perCandidate: { calls: number; input: number; output: number };
  /** How perCandidate is made, for the forecast's basis line. */
  basis: string;
  /** Calls the forecast leaves out because they depend on what the model writes (RF-Agent's re-debug), said beside the figure. */
  uncounted?: string;
}

/** A whole search that replaces the round loop for a config's `method` (eureka, rf-agent: src/search on the family's evaluator and proposer). */
export interface FamilySearch {
  /** The search's name in run ids, e.g. "eureka". */
  name: string;
  /** One line for the run's start, e.g. "eureka: 16 candidates per task". */
  label: string;
  /**
   * Runs, or resumes, the search of every level of the config, writing its records under `dir` (the run
   * directory). Every answered call of `actorModel` is reported to `onCall` with where it was made (the CLI
   * records it in usage.jsonl); a BudgetExceeded from the model stops the search after the trainings in flight.
   */
  run(req: {
    dir: string;
    actorModel?: RoleModel;
    onCall?: (call: SearchCall, turn: AssistantTurn) => void;
    log: (line: string) => void;
    signal?: AbortSignal;
  }): Promise<void>;
  /** The calls still to make in the run directory `dir` (undefined: a new run), for the forecast. */
  calls(dir: string | undefined): SearchCalls;
}

/** What a family's `search.finalScores` reads of a finished run. */
export interface FinalScoreRequest {
  config: RunConfig;
  dir: string;
  /** Each level's phases in the run's schedule. */
  phases: ReadonlyMap<string, LevelPhases>;
  /** The run's episodes (none for a whole search). */
  episodes: readonly EpisodeRecord[];
}

/** The non-LLM agent, evolver and transfer synthesiser (agent: heuristic, evolver: heuristic; docs/spec/method.md §6). */
export interface HeuristicsCapability {
  /** The heuristic agent's episode, labelled as such in its trajectory. */
  play(req: HeuristicPlayRequest): Promise<Trajectory>;
  /** The heuristic evolver's update (same contract as the LLM evolver). */
  evolve(o: HeuristicEvolveRequest): BankEvent[];
  /**
   * The non-LLM transfer synthesiser: source banks (with their levels) and the target level → the target bank's
   * entries, each citing the source entries it maps (level, id). Absent: only the LLM synthesiser (agents/).
   */
  synthesise?(o: HeuristicSynthesisRequest): HeuristicSynthesis;
  /**
   * A bank entry's `payload` (the machine form the heuristic agent reads), checked wherever a bank enters a run
   * (src/store/bank-check.ts) so that an entry the episode cannot use is refused by its id; absent: any record.
   */
  payload?: z.ZodType;
}

/** A run-wide budget of heavy work (reward search: trainings): whole searches instead of rounds, each episode's share, the final figures. */
export interface SearchCapability {
  /** The whole search the config's `method` asks for instead of rounds (hexa run runs it in the run directory); undefined for method rounds. */
  searchFor(config: RunConfig): FamilySearch | undefined;
  /**
   * This episode's share of a run-wide budget the config sets (reward search: search.budget trainings per
   * task), given what the level's earlier phases spent (TrajectoryStep.spent); undefined: no budget. Computed
   * by the loop when it schedules the episode, so a resume and a remote worker see the same share.
   */
  allowanceOf?(req: AllowanceRequest): number | undefined;
  /** Each level's final figure after a run's rounds or search (hexa run writes final-scores.json); undefined: the config asks for none. */
  finalScores?(req: FinalScoreRequest): Promise<FinalScore[] | undefined>;
  /**
   * Whether `finalScores` gives figures for this config, so that a run without final-scores.json is not finished
   * (a run killed while its final trainings ran); absent: whenever `finalScores` is there.
   */
  finalScoresDue?(config: RunConfig): boolean;
}

/** Checks of what enters a run beyond the core's schemas; each part is optional. */
export interface ChecksCapability {
  /**
   * Why a trajectory another machine handed back (a worker's result, docs/security.md) cannot be an episode of this
   * task, as `field: problem (got value)`: an action outside the level's action space, a score outside its range, a
   * path that would be read here. Undefined when it can be; called after the action schema held. Absent: the schema only.
   */
  trajectoryProblem?(task: Task, trajectory: Trajectory): string | undefined;
  /** The names of the things a level's text may speak of (scene objects, observation fields): the transfer audit's object check; absent: skipped. */
  objectsOf?(level: string): string[];
  /**
   * Throws a ConfigError naming the field when the family's slice and the rest of the config cannot work together
   * (`phases`: each level's in the run's schedule); hexa run calls it before writing anything.
   */
  checkConfig?(config: RunConfig, phases: ReadonlyMap<string, LevelPhases>): void;
  /**
   * Asks what the config names outside hexa (a trainer process) whether it can serve the run, and throws a
   * ConfigError naming both sides when it cannot; hexa run awaits it before writing anything.
   */
  checkStart?(config: RunConfig): Promise<void>;
}

/**
 * The record of work the family does outside the run's own files (reward search: the trainer cache entries its
 * trainings were answered with), kept in the run directory so that a bundle of the run holds all its replay reads,
 * including the work of episodes played on workers.
 */
export interface RecordsCapability {
  /**
   * Told the run directory once hexa run has made (or reopened) it, before anything is played. `keep: false` (hexa
   * eval, which only reads the run): the run's folder places the family's own folders, and nothing is kept in it.
   */
  openRun(runDir: string, o?: { keep?: boolean }): void;
  /** On a worker: this family for one episode, noting what the coordinator must keep beside the episode's records, handed back as `kept()`. */
  recordingEpisode(): { family: LevelFamily; kept(): unknown };
  /**
   * On the coordinator: keeps in the run what a worker handed back beside an episode of `task` (`recordingEpisode`),
   * once the episode's result has been checked; why it cannot (nothing then written), or undefined. Anyone who can
   * write to Redis may have written it: it is checked as a worker's result is.
   */
  keepFromWorker(task: Task, kept: unknown): string | undefined;
}
