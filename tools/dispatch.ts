import { HexaError, InvariantError, ModelOutputError } from "../src/errors.ts";
import type { ToolProgress } from "../src/family/task-env.ts";
import type { Tool, ToolRunOutput } from "./define-tool.ts";
import { parseToolCall } from "./tool-call.ts";

/**
 * What dispatch gives back for one call (docs/ARCHITECTURE.md §3): the tool's `ToolRunOutput` tagged with its name, or
 * the error the model is shown; a family's `TaskEnv.call` turns it into a `ToolResult` (src/family/task-env.ts).
 */
export type DispatchOutcome = ({ ok: true; tool: string } & ToolRunOutput) | { ok: false; tool: string; error: string; observation: string };

export interface CallOptions {
  onProgress?: (p: ToolProgress) => void;
  /** Errors besides ModelOutputError that the model is shown as an observation; anything else throws (the user must act). */
  shownToModel?: (e: unknown) => boolean;
}

const failure = (tool: string, error: string): DispatchOutcome => ({ ok: false, tool, error, observation: `ERROR: ${error}` });

const caught = (name: string, e: unknown, o: CallOptions): DispatchOutcome => {
  if (e instanceof ModelOutputError || o.shownToModel?.(e)) return failure(name, (e as Error).message);
  throw e;
};

/** A user-facing ConfigError (a bad value the model chose), shown to the model like a ModelOutputError. */
export const isConfigError = (e: unknown): boolean => e instanceof HexaError && e.name === "ConfigError";

/** Runs a model's tool call; never throws for the model's mistakes (an error observation), only for a hexa bug or a broken host. */
export const callTool = async <S>(tools: readonly Tool<S>[], session: S, name: string, raw: unknown, o: CallOptions = {}): Promise<DispatchOutcome> => {
  const call = parseToolCall(tools, name, raw);
  if ("error" in call) return failure(name, call.error);
  return runParsed(call.tool, session, call.args, o);
};

/** `callTool` for arguments already parsed with the tool's schema in this process (the agent's tool node): no second parse. */
export const runParsed = async <S>(tool: Tool<S>, session: S, args: unknown, o: CallOptions = {}): Promise<DispatchOutcome> => {
  try {
    return { ok: true, tool: tool.name, ...(await tool.run(session, args, o.onProgress)) };
  } catch (e) {
    return caught(tool.name, e, o);
  }
};

/** `callTool` for tools that never wait (a physics rollout): the same rules, no promise, for tight loops. */
export const callToolSync = <S>(tools: readonly Tool<S>[], session: S, name: string, raw: unknown, o: CallOptions = {}): DispatchOutcome => {
  const call = parseToolCall(tools, name, raw);
  if ("error" in call) return failure(name, call.error);
  return runParsedSync(call.tool, session, call.args, o);
};

/**
 * `callToolSync` for a call whose arguments this process already parsed with the tool's schema (Interphyre's physics
 * worker, fed by its host): the tool runs on them as they are, with the same error rules, and no second parse.
 */
export const runParsedSync = <S>(tool: Tool<S>, session: S, args: unknown, o: CallOptions = {}): DispatchOutcome => {
  try {
    const out = tool.run(session, args, o.onProgress);
    if (out instanceof Promise) throw new InvariantError(`callToolSync: tool ${tool.name} is async; call it with callTool`);
    return { ok: true, tool: tool.name, ...out };
  } catch (e) {
    return caught(tool.name, e, o);
  }
};
