import { z } from "zod";
import type { LevelInstance } from "../levels/interphyre/instance.ts";
import { InvariantError } from "../src/errors.ts";
import type { AssistantTurn, ChatModel, ToolCall, ToolSpec } from "../src/llm/chat-model.ts";
import { callTool, ToolSession, type Tool, type ToolOutcome } from "../tools/define-tool.ts";
import type { ActorConfig } from "./actor-config.ts";
import { buildMessages, type Turn } from "./context.ts";
import { NUDGE, systemPrompt, taskMessage } from "./prompt.ts";
import { callUsage, countedTurns, NO_USAGE, sumUsage, type StopReason, type Trajectory, type TrajectoryStep, type EpisodeUsage } from "./trajectory.ts";

/** Tools whose observations describe the scene: pinned in the context however old. */
const SCENE_TOOLS = new Set(["get_level_state", "describe_scene_geometry"]);

export interface EpisodePorts {
  model: ChatModel;
  /** Cost in USD of one model turn (from the price table); 0 when unknown. */
  costOf: (turn: AssistantTurn) => number;
  now: () => number;
  /** Progress, turn by turn. */
  onStep?: (step: TrajectoryStep) => void;
}

export interface EpisodeSpec {
  instance: LevelInstance;
  tools: readonly Tool[];
  config: ActorConfig;
  agent: string;
  skillPrefix?: string;
  reflections?: readonly string[];
  protocol?: string;
}

export const toolSpecs = (tools: readonly Tool[]): ToolSpec[] =>
  tools.map((t) => ({ name: t.name, description: t.description, parameters: z.toJSONSchema(t.input, { io: "input" }) as Record<string, unknown> }));

const executeCall = (tools: readonly Tool[], session: ToolSession, call: ToolCall, extra: number): ToolOutcome => {
  const outcome: ToolOutcome = call.argsError
    ? { ok: false, tool: call.name, error: call.argsError, observation: `ERROR: ${call.argsError}` }
    : callTool(tools, session, call.name, call.args);
  if (extra === 0) return outcome;
  return { ...outcome, observation: `${outcome.observation}\nNote: you made ${extra + 1} tool calls; only the first (${call.name}) was executed. Make one call per turn.` };
};

const resultOf = (o: ToolOutcome) => (o.ok ? (o.result as { success?: boolean; action?: { x: number; y: number; radius: number } }) : undefined);

/**
 * The ReAct loop (method.md §1): each turn the model writes a thought and makes one tool call; every turn counts.
 * The episode ends on auto-finish (simulate_action succeeded), on `finish`, when the budget is spent, or when
 * the model endpoint fails for good (the trajectory is kept, with stopReason "error").
 */
export const runActorEpisode = async (spec: EpisodeSpec, ports: EpisodePorts): Promise<Trajectory> => {
  const { instance, tools, config } = spec;
  const started = ports.now();
  const session = new ToolSession(instance, config.horizon);
  const system = systemPrompt({
    instance,
    tools,
    maxTurns: config.maxTurns,
    horizon: config.horizon,
    ...(spec.skillPrefix ? { skillPrefix: spec.skillPrefix } : {}),
    ...(spec.reflections ? { reflections: spec.reflections } : {}),
    ...(spec.protocol ? { protocol: spec.protocol } : {}),
  });
  const task = taskMessage(instance, config.maxTurns);
  const specs = toolSpecs(tools);
  const turns: Turn[] = [];
  const steps: TrajectoryStep[] = [];
  let usage: EpisodeUsage = { ...NO_USAGE };
  let model = ports.model.name;
  let stop: { reason: StopReason; success: boolean; action: Trajectory["finalAction"]; error?: string } | undefined;

  for (let turn = 1; turn <= config.maxTurns && !stop; turn++) {
    let reply: AssistantTurn;
    try {
      reply = await ports.model.invoke(buildMessages(system, task, turns, { keepTurns: config.keepTurns, head: config.oldObservationHead, tail: config.oldObservationTail }), specs);
    } catch (e) {
      if (e instanceof InvariantError) throw e;
      stop = { reason: "error", success: false, action: null, error: (e as Error).message };
      break;
    }
    model = reply.model || model;
    usage = sumUsage(usage, callUsage(reply.usage, ports.costOf(reply)));
    const call = reply.toolCalls[0];
    const t0 = ports.now();
    let step: TrajectoryStep;
    if (!call) {
      const observation = reply.text.trim() === "" ? `The response was empty. ${NUDGE}` : NUDGE;
      turns.push({ thought: reply.text, call: undefined, reply: observation, pinned: false });
      step = { turn, thought: reply.text, tool: "(none)", args: null, observation, ok: false, ms: 0 };
    } else {
      const outcome = executeCall(tools, session, call, reply.toolCalls.length - 1);
      turns.push({ thought: reply.text, call, reply: outcome.observation, pinned: outcome.ok && SCENE_TOOLS.has(call.name) });
      step = { turn, thought: reply.text, tool: call.name, args: call.args, observation: outcome.observation, ok: outcome.ok, ms: ports.now() - t0 };
      const result = resultOf(outcome);
      if (call.name === "simulate_action" && result?.success) stop = { reason: "success", success: true, action: result.action ?? null };
      else if (call.name === "finish" && result) stop = { reason: "finish", success: result.success === true, action: result.action ?? null };
    }
    steps.push(step);
    ports.onStep?.(step);
  }
  const final = stop ?? { reason: "budget" as const, success: false, action: null };
  return {
    schemaVersion: 1,
    level: instance.level,
    seed: instance.seed,
    agent: spec.agent,
    model,
    success: final.success,
    turns: countedTurns(final.success, steps.length, config.maxTurns),
    maxTurns: config.maxTurns,
    finalAction: final.action,
    steps,
    usage,
    wallMs: ports.now() - started,
    stopReason: final.reason,
    ...(final.error ? { error: final.error } : {}),
  };
};
