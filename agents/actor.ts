import { InvariantError } from "../src/errors.ts";
import { BudgetExceeded } from "../src/llm/budget.ts";
import { ContextOverflow } from "../src/llm/llm-error.ts";
import type { AssistantTurn, ChatModel, ToolCall } from "../src/llm/chat-model.ts";
import { requestCharCap, type ActorConfig } from "./actor-config.ts";
import { buildMessages, type CompactionOptions, type Turn } from "./context.ts";
import { firstUserMessage, NUDGE, systemPrompt } from "./prompt.ts";
import type { ObservationSection, TaskEnv, ToolProgress, ToolResult } from "../src/family/task-env.ts";
import { cuttable, kept } from "../src/family/observation.ts";
import { cutMiddle } from "../src/util/cut-text.ts";
import {
  callUsage,
  countedTurns,
  NO_USAGE,
  storedStep,
  sumUsage,
  TRAJECTORY_SCHEMA_VERSION,
  type StopReason,
  type Trajectory,
  type TrajectoryStep,
  type EpisodeUsage,
} from "../src/store/trajectory.ts";

export interface EpisodePorts {
  model: ChatModel;
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
}

/**
 * A reasoning model's reasoning (reply.reasoning) is kept in the trajectory's thought after the answer's text (so a
 * reader that cuts the thought keeps the answer; agents/evolver-trajectory.ts splits at the marker), cut to head +
 * tail like an old observation, and never sent back: the context keeps only the answer's text.
 */
const REASONING_HEAD = 1500;
const REASONING_TAIL = 500;

const thoughtOf = (reply: AssistantTurn): string =>
  reply.reasoning
    ? [reply.text, `[reasoning] ${cutMiddle(reply.reasoning, REASONING_HEAD, REASONING_TAIL)}`].filter((t) => t.trim() !== "").join("\n\n")
    : reply.text;

const executeCall = async (env: TaskEnv, call: ToolCall, extra: number, onProgress?: (p: ToolProgress) => void): Promise<ToolResult> => {
  const outcome: ToolResult = call.argsError
    ? { ok: false, error: call.argsError, observation: `ERROR: ${call.argsError}` }
    : await env.call(call.name, call.args, onProgress);
  if (extra === 0) return outcome;
  const note = `Note: you made ${extra + 1} tool calls; only the first (${call.name}) was executed. Make one call per turn.`;
  return {
    ...outcome,
    observation: `${outcome.observation}\n${note}`,
    ...(outcome.compact ? { compact: [...outcome.compact, kept(note)] } : {}),
  };
};

/**
 * The ReAct loop (docs/spec/method.md §1.1): each turn the model writes a thought and makes one tool call; every turn counts.
 * The episode ends when the family's rule says a call ended it (auto-finish, finish), when the budget is spent, or when
 * the model endpoint fails for good (the trajectory is kept, with stopReason "error").
 */
export const runActorEpisode = async (spec: EpisodeSpec, ports: EpisodePorts): Promise<Trajectory> => {
  const started = ports.now();
  const env = await spec.open(spec.config.maxTurns);
  try {
    return await play(env, spec, ports, started);
  } finally {
    await env.close();
  }
};

/**
 * The observation as the model reads it, after the turn count: the budget is in the system prompt, but a model
 * deep in an episode loses count (method.md §9: prompts say what the harness enforces). Trajectories keep the
 * tool's own text.
 */
const turnLine = (turn: number, maxTurns: number): string => `[turn ${turn} of ${maxTurns} used; ${maxTurns - turn} left]`;

const withTurnLine = (observation: string, turn: number, maxTurns: number): string => `${turnLine(turn, maxTurns)}\n${observation}`;

/**
 * The reply's sections for compaction: the turn line kept, then the family's sections, or the observation as one
 * cuttable text. Sections that do not join to the observation are a family's bug.
 */
const replySections = (tool: string, outcome: ToolResult, turn: number, maxTurns: number): ObservationSection[] => {
  const body = outcome.compact ?? [cuttable(outcome.observation)];
  if (body.map((s) => s.text).join("\n") !== outcome.observation) {
    throw new InvariantError(`tool ${tool}: its compact sections do not join to its observation`);
  }
  return [kept(turnLine(turn, maxTurns)), ...body];
};

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

const episodeSystemPrompt = (env: TaskEnv, spec: EpisodeSpec): string =>
  systemPrompt({
    prompt: env.prompt,
    tools: env.tools,
    maxTurns: spec.config.maxTurns,
    ...(spec.skillPrefix ? { skillPrefix: spec.skillPrefix } : {}),
    ...(spec.reflections ? { reflections: spec.reflections } : {}),
    ...(spec.protocol ? { protocol: spec.protocol } : {}),
  });

/** A turn whose call ran, as the context keeps it; only the first scene reading of each tool is pinned. */
const calledTurn = (reply: AssistantTurn, call: ToolCall, outcome: ToolResult, at: { turn: number; maxTurns: number; pinnedTools: Set<string> }): Turn => {
  const pinned = outcome.ok && outcome.pinned === true && !at.pinnedTools.has(call.name);
  if (pinned) at.pinnedTools.add(call.name);
  return {
    thought: reply.text,
    call,
    reply: withTurnLine(outcome.observation, at.turn, at.maxTurns),
    pinned,
    compact: replySections(call.name, outcome, at.turn, at.maxTurns),
  };
};

const play = async (env: TaskEnv, spec: EpisodeSpec, ports: EpisodePorts, started: number): Promise<Trajectory> => {
  const { config } = spec;
  const system = episodeSystemPrompt(env, spec);
  const task = firstUserMessage(env.prompt, Boolean(spec.skillPrefix));
  const compaction = compactionOf(config);
  const pinnedTools = new Set<string>();
  const specs = [...env.tools];
  const turns: Turn[] = [];
  const steps: TrajectoryStep[] = [];
  let usage: EpisodeUsage = { ...NO_USAGE };
  let model = ports.model.name;
  let stop: { reason: StopReason; success: boolean; action: unknown; score?: number; error?: string } | undefined;

  for (let turn = 1; turn <= config.maxTurns && !stop; turn++) {
    let reply: AssistantTurn;
    try {
      reply = await ports.model.invoke(buildMessages(system, task, turns, compaction), specs);
    } catch (e) {
      // A spend cap is the run's to act on (it stops cleanly and resumes), not an outcome of this episode.
      if (e instanceof InvariantError || e instanceof BudgetExceeded) throw e;
      // A context the episode outgrew is its outcome (a failure), not the endpoint's: the run goes on.
      stop = { reason: e instanceof ContextOverflow ? "context" : "error", success: false, action: null, error: (e as Error).message };
      break;
    }
    model = reply.model || model;
    usage = sumUsage(usage, callUsage(reply.usage, ports.costOf(reply)));
    const call = reply.toolCalls[0];
    const t0 = ports.now();
    let step: TrajectoryStep;
    const thought = thoughtOf(reply);
    if (!call) {
      // A cut or unreadable answer says so, not "empty" (it may be all reasoning, or a call written as text).
      const observation = reply.problem ? `${reply.problem}. ${NUDGE}` : reply.text.trim() === "" ? `The response was empty. ${NUDGE}` : NUDGE;
      turns.push({ thought: reply.text, call: undefined, reply: withTurnLine(observation, turn, config.maxTurns), pinned: false });
      step = { turn, thought, tool: "(none)", args: null, observation, ok: false, ms: 0 };
    } else {
      // Arguments cut at the output cap are named as that, not as invalid JSON.
      const cut = call.argsError && reply.problem ? { ...call, argsError: reply.problem } : call;
      const outcome = await executeCall(env, cut, reply.toolCalls.length - 1, ports.onToolProgress);
      turns.push(calledTurn(reply, call, outcome, { turn, maxTurns: config.maxTurns, pinnedTools }));
      step = {
        turn,
        thought,
        tool: call.name,
        args: call.args,
        observation: outcome.observation,
        ok: outcome.ok,
        ms: ports.now() - t0,
        ...(outcome.spent ? { spent: outcome.spent } : {}),
      };
      if (outcome.ends) stop = { ...outcome.ends };
    }
    const kept = storedStep(step);
    steps.push(kept);
    ports.onStep?.(kept);
  }
  const final = stop ?? { reason: "budget" as const, success: false, action: null };
  return {
    schemaVersion: TRAJECTORY_SCHEMA_VERSION,
    level: env.level,
    seed: env.seed,
    agent: spec.agent,
    model,
    success: final.success,
    turns: countedTurns(final.success, steps.length, config.maxTurns),
    maxTurns: config.maxTurns,
    action: final.action,
    ...("score" in final && final.score !== undefined ? { score: final.score } : {}),
    steps,
    usage,
    wallMs: ports.now() - started,
    stopReason: final.reason,
    ...(final.error ? { error: final.error } : {}),
  };
};
