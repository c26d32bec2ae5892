import { HumanMessage } from "@langchain/core/messages";
import type { AgentMiddleware } from "langchain";
import type { TaskEnv, ToolProgress } from "../src/family/task-env.ts";
import type { RoleModel } from "../src/llm/ask.ts";
import type { AssistantTurn } from "../src/llm/chat-model.ts";
import { countedTurns, TRAJECTORY_SCHEMA_VERSION, type Trajectory, type TrajectoryStep } from "../src/store/trajectory.ts";
import { requestCharCap, type ActorConfig } from "./actor-config.ts";
import type { CompactionOptions } from "./context.ts";
import { openEpisode, type EpisodeRecord } from "./episode-state.ts";
import { basePrompt } from "./prompt.ts";

export interface EpisodePorts {
  model: RoleModel;
  /** Cost in USD of one model turn (from the price table); 0 when unknown. */
  costOf: (turn: AssistantTurn) => number;
  now: () => number;
  /** Progress, turn by turn. */
  onStep?: (step: TrajectoryStep) => void;
  /** Progress inside a long tool call (a training). */
  onToolProgress?: (p: ToolProgress) => void;
}

export interface EpisodeSpec {
  /** Opens a fresh instance of the task for a turn budget (Reflexion opens one per trial); the episode closes it. */
  open: (maxTurns: number) => Promise<TaskEnv>;
  config: ActorConfig;
  agent: string;
  skillPrefix?: string;
  reflections?: readonly string[];
  protocol?: string;
  /**
   * langchain middleware of the user's (tracing, logging, guards), run after hexa's own (docs/ARCHITECTURE.md §5.1):
   * its wrapModelCall sees every model call as sent, its wrapToolCall every tool call as run.
   */
  extraMiddleware?: readonly AgentMiddleware[];
}

/** How the context is compacted (docs/spec/method.md §1.2), from the actor's config. */
const compactionOf = (config: ActorConfig): CompactionOptions => {
  const cap = requestCharCap(config);
  return {
    keepTurns: config.keepTurns,
    head: config.oldObservationHead,
    tail: config.oldObservationTail,
    maxChars: cap,
    mode: config.compaction,
    compactFrom: Math.floor(cap * config.compactAt),
  };
};

/**
 * The ReAct loop (docs/spec/method.md §1.1) as a langchain agent whose middleware carries hexa's rules
 * (agents/actor-agent.ts): each turn the model writes a thought and makes one tool call; every turn counts. The
 * episode ends when the family's rule says a call ended it (auto-finish, finish), when the budget is spent, or
 * when the model endpoint fails for good (the trajectory is kept, with stopReason "error").
 */
export const runActorEpisode = async (spec: EpisodeSpec, ports: EpisodePorts): Promise<Trajectory> => {
  const started = ports.now();
  const env = await spec.open(spec.config.maxTurns);
  try {
    const state = await play(env, spec, ports);
    return trajectoryOf(env, spec, state, ports.now() - started);
  } finally {
    await env.close();
  }
};

/**
 * Loaded with the first model-driven episode, once: a heuristic run (and every command that plays none) never loads
 * langchain's agent and langgraph, about a second of start-up on a busy machine.
 */
let agentModules: Promise<[typeof import("./actor-agent.ts"), typeof import("./middleware/root-cause.ts")]> | undefined;
const loadAgentModules = () => {
  agentModules ??= Promise.all([import("./actor-agent.ts"), import("./middleware/root-cause.ts")]);
  return agentModules;
};

const play = async (env: TaskEnv, spec: EpisodeSpec, ports: EpisodePorts): Promise<EpisodeRecord> => {
  const [{ createActorAgent }, { rootCause }] = await loadAgentModules();
  const { agent, recursionLimit } = createActorAgent({
    env,
    model: ports.model,
    rules: { maxTurns: spec.config.maxTurns, costOf: ports.costOf, now: ports.now, ...(ports.onStep ? { onStep: ports.onStep } : {}) },
    basePrompt: basePrompt({ prompt: env.prompt, tools: env.tools, maxTurns: spec.config.maxTurns, ...(spec.protocol ? { protocol: spec.protocol } : {}) }),
    additions: {
      noun: env.prompt.noun,
      ...(spec.skillPrefix ? { skillPrefix: spec.skillPrefix, addendum: { ...(env.prompt.experiment ? { experiment: env.prompt.experiment } : {}) } } : {}),
      ...(spec.reflections ? { reflections: spec.reflections } : {}),
    },
    compaction: compactionOf(spec.config),
    ...(ports.onToolProgress ? { onToolProgress: ports.onToolProgress } : {}),
    ...(spec.extraMiddleware ? { extraMiddleware: spec.extraMiddleware } : {}),
  });
  try {
    // A model call that failed for good ends the graph with the state kept (agents/middleware/turn-budget.ts);
    // what is thrown (a spend cap, a broken host, a hexa bug) is not the episode's outcome.
    const start = { messages: [new HumanMessage(env.prompt.task)], episode: openEpisode(ports.model.model) };
    const state = await agent.invoke(start, { recursionLimit });
    // The user's middleware widen the agent's type; the episode's record is hexa's middleware state all the same.
    return (state as typeof state & { episode: EpisodeRecord }).episode;
  } catch (e) {
    throw rootCause(e);
  }
};

const trajectoryOf = (env: TaskEnv, spec: EpisodeSpec, state: EpisodeRecord, wallMs: number): Trajectory => {
  const final = state.stop ?? { reason: "budget" as const, success: false, action: null };
  const { maxTurns } = spec.config;
  return {
    schemaVersion: TRAJECTORY_SCHEMA_VERSION,
    level: env.level,
    seed: env.seed,
    agent: spec.agent,
    model: state.servedModel,
    success: final.success,
    turns: countedTurns(final.success, state.steps.length, maxTurns),
    maxTurns,
    action: final.action,
    ...(final.score !== undefined ? { score: final.score } : {}),
    steps: state.steps,
    usage: state.usage,
    wallMs,
    stopReason: final.reason,
    ...(final.error ? { error: final.error } : {}),
  };
};
