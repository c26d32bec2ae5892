import type { LevelInstance } from "../levels/interphyre/instance.ts";
import type { AssistantTurn, ChatModel } from "../src/llm/chat-model.ts";
import { createRng } from "../src/sim/rng.ts";
import { toolSet } from "../tools/index.ts";
import type { ActorConfig } from "./actor-config.ts";
import { runDirect } from "./baselines/direct.ts";
import { runReact } from "./baselines/react.ts";
import { runReflexion } from "./baselines/reflexion.ts";
import { runHeuristicEpisode } from "./heuristic.ts";
import type { Trajectory, TrajectoryStep } from "./trajectory.ts";
import { ConfigError } from "../src/errors.ts";
import { DIRECT_TURNS } from "./baselines/direct.ts";
import { REFLEXION } from "./baselines/reflexion.ts";

/** The turn budget an agent enforces: Direct and Reflexion have their own (method.md §7). */
export const budgetOf = (agent: AgentName, maxTurns: number): number =>
  agent === "direct" ? DIRECT_TURNS : agent === "reflexion" ? REFLEXION.trials * REFLEXION.turnsPerTrial : maxTurns;

export const AGENTS = ["react", "direct", "reflexion", "heuristic"] as const;
export type AgentName = (typeof AGENTS)[number];

export interface EpisodeRequest {
  agent: AgentName;
  instance: LevelInstance;
  config: ActorConfig;
  /** Required for every agent except the heuristic one. */
  model?: ChatModel;
  costOf?: (turn: AssistantTurn) => number;
  now: () => number;
  onStep?: (step: TrajectoryStep) => void;
}

/** One episode with the chosen agent: the single place that maps an agent name to its loop. */
export const runEpisode = async (r: EpisodeRequest): Promise<Trajectory> => {
  if (r.agent === "heuristic") {
    const t = runHeuristicEpisode({
      instance: r.instance,
      maxTurns: r.config.maxTurns,
      horizon: r.config.horizon,
      rng: createRng(r.instance.seed),
      now: r.now,
    });
    t.steps.forEach((s) => r.onStep?.(s));
    return t;
  }
  if (!r.model) throw new ConfigError(`agent ${r.agent} needs a model: pass --model and --base-url, or use the heuristic agent`);
  const spec = { instance: r.instance, tools: toolSet(r.config.toolSet), config: r.config };
  const ports = { model: r.model, costOf: r.costOf ?? (() => 0), now: r.now, ...(r.onStep ? { onStep: r.onStep } : {}) };
  switch (r.agent) {
    case "react":
      return runReact(spec, ports);
    case "direct":
      return runDirect(spec, ports);
    case "reflexion":
      return runReflexion(spec, ports);
  }
};

