import type { TaskEnv, ToolResult } from "../../src/family/task-env.ts";
import { toolInputs, toolSpecs } from "../../tools/tool-specs.ts";
import { callInterphyreTool, runParsedInterphyreTool, InterphyreSession, type InterphyreTool, type DispatchOutcome } from "./tools/interphyre-tool.ts";
import { toolSet } from "./tools/index.ts";
import { parseToolCall } from "../../tools/tool-call.ts";
import { createInstance } from "./instance.ts";
import { physicsHost, type PhysicsHost } from "./physics-host.ts";
import { interphyrePrompt } from "./prompt.ts";
import { DEFAULT_ENGINE, loadEngine, type EngineName } from "./world/engines.ts";

/** Tools whose observations describe the scene: pinned in the context however old. */
const SCENE_TOOLS = new Set(["get_level_state", "describe_scene_geometry"]);

export interface InterphyreEnvRequest {
  level: string;
  seed: number;
  horizon: number;
  toolSet: string;
  maxTurns: number;
  /** Default planck. */
  engine?: EngineName;
}

type Placed = { success?: boolean; action?: { x: number; y: number; radius: number } };

/** Interphyre's finish rule (docs/spec/method.md §1.1): a successful full rollout ends the episode at once; `finish` commits. */
export const endingOf = (name: string, o: DispatchOutcome): ToolResult["ends"] => {
  if (!o.ok) return undefined;
  const r = o.result as Placed;
  if (name === "simulate_action" && r.success) return { reason: "success", success: true, action: r.action ?? null };
  if (name === "finish") return { reason: "finish", success: r.success === true, action: r.action ?? null };
  return undefined;
};

export const toToolResult = (name: string, o: DispatchOutcome): ToolResult => {
  const ends = endingOf(name, o);
  return o.ok
    ? {
        ok: true,
        observation: o.observation,
        result: o.result,
        pinned: SCENE_TOOLS.has(name),
        ...(o.compact ? { compact: o.compact } : {}),
        ...(ends ? { ends } : {}),
      }
    : { ok: false, observation: o.observation, error: o.error };
};

/**
 * The main thread's half of callInterphyreTool: an unknown tool or arguments the tool's schema rejects give callInterphyreTool's own
 * error outcome here; otherwise the schema's output, which holds numbers wherever the physics reads numbers. Only
 * that output is posted to the worker — a model's raw `{"x": "1", "y": "2"}` never becomes an object there.
 */
export const validateCall = (tools: readonly InterphyreTool[], name: string, raw: unknown): { outcome: DispatchOutcome } | { args: unknown } => {
  const call = parseToolCall(tools, name, raw);
  return "error" in call ? { outcome: { ok: false, tool: name, error: call.error, observation: `ERROR: ${call.error}` } } : { args: call.args };
};

export interface InterphyreEnvOptions {
  /** Where the tools run: the process's physics worker (default; see physics-host.ts), another host, or in-process (tests, benches). */
  physics?: PhysicsHost | "in-process";
}

/**
 * One Interphyre episode's tools. By default they run in the physics worker, where nothing the model layer
 * parses can slow the physics (docs/spec/interphyre.md §5.2); observations and results are the same as in-process.
 */
export const openInterphyreEnv = async (r: InterphyreEnvRequest, opts: InterphyreEnvOptions = {}): Promise<TaskEnv> => {
  const instance = createInstance(r.level, r.seed);
  const tools = toolSet(r.toolSet);
  const inputs = toolInputs(tools);
  const base = {
    level: instance.level,
    seed: instance.seed,
    tools: toolSpecs(tools),
    prompt: interphyrePrompt(instance, r.horizon, r.maxTurns),
  };
  const physics = opts.physics ?? physicsHost();
  if (physics === "in-process") {
    const session = new InterphyreSession(instance, r.horizon, await loadEngine(r.engine ?? DEFAULT_ENGINE));
    return {
      ...base,
      call: async (name, args) => toToolResult(name, callInterphyreTool(tools, session, name, args)),
      parsed: { inputs, call: async (name, args) => toToolResult(name, runParsedInterphyreTool(tools, session, name, args)) },
      close: async () => {},
    };
  }
  const session = physics.openSession({
    level: instance.level,
    seed: instance.seed,
    horizon: r.horizon,
    toolSet: r.toolSet,
    engine: r.engine ?? DEFAULT_ENGINE,
  });
  return {
    ...base,
    call: async (name, args) => {
      const v = validateCall(tools, name, args);
      return toToolResult(name, "outcome" in v ? v.outcome : await session.call(name, v.args));
    },
    // The agent's tool node parsed the call with the tool's schema: the worker is posted its output, as above.
    parsed: { inputs, call: async (name, args) => toToolResult(name, await session.call(name, args)) },
    close: async () => session.close(),
  };
};
