import type { Labelled } from "../../agents/evolver-labels.ts";
import type { Trajectory, TrajectoryStep } from "../../agents/trajectory.ts";
import type { AssistantTurn, ChatModel } from "../llm/chat-model.ts";
import type { Bank, BankEvent } from "../store/bank.ts";
import type { RunConfig, RunAgent } from "./run-config.ts";

/** One task of a family: a level at a seed. */
export interface Task {
  level: string;
  seed: number;
}

export interface PlayRequest {
  task: Task;
  agent: RunAgent;
  config: RunConfig;
  /** The bank the episode may draw on (the retriever's top-M / top-N is taken from it); empty for baselines. */
  bank: Bank;
  model?: ChatModel;
  costOf: (turn: AssistantTurn) => number;
  now: () => number;
  onStep?: (step: TrajectoryStep) => void;
}

export interface Played {
  trajectory: Trajectory;
  /** Ids of the bank entries put in front of the agent. */
  retrieved: string[];
}

/**
 * What the round loop needs from a level family (issue 5): tasks, their factual description, how to play one
 * and, optionally, a non-LLM evolver. The loop knows nothing else of physics, so a family whose actions are
 * reward code and whose tools train policies fits without changing the loop, the bank or the evolver.
 */
export interface LevelFamily {
  id: string;
  /** Throws a ConfigError naming the level and the known ones. */
  checkLevel(level: string): void;
  /** The family's vetted seeds of a level, in a fixed order (the stream, offline and held-out sets are cut from it). */
  seedsOf(level: string): number[];
  /** The factual scene description shown to evolvers and synthesisers. */
  describe(level: string): string;
  play(req: PlayRequest): Promise<Played>;
  /** The heuristic evolver's update (same contract as the LLM evolver); absent when the family has none. */
  evolveHeuristic?(o: { round: number; level: string; bank: Bank; labelled: readonly Labelled[]; caps: { skills: number; mistakes: number } }): BankEvent[];
}
