import { z } from "zod";
import { HexaError, ModelOutputError } from "../../../src/errors.ts";
import type { LevelInstance } from "../instance.ts";
import type { ContactEvent } from "../world/contacts.ts";
import type { Snapshot } from "../world/snapshot.ts";
import type { Action } from "../world/simulation.ts";
import { HEXA_HARNESS_HORIZON_STEPS } from "../world/constants.ts";
import { parseToolCall } from "../../../src/family/tool-call.ts";

/** What the tools of one episode share: the task, the horizon, and the memory of earlier calls. */
export class ToolSession {
  /** Contact events of the last simulation any tool ran, for get_contact_log. */
  lastContacts: { action: Action; events: ContactEvent[] } | undefined;
  readonly snapshots = new Map<string, Snapshot>();
  private nextSnapshot = 1;

  constructor(
    readonly instance: LevelInstance,
    readonly horizon: number = HEXA_HARNESS_HORIZON_STEPS,
  ) {}

  addSnapshot(s: Snapshot): string {
    const id = `snap_${this.nextSnapshot++}`;
    this.snapshots.set(id, s);
    return id;
  }
}

/**
 * One tool the actor may call: the zod schema is both the model's contract and the parser (docs/spec/style.md §4).
 * `run` is pure over the world; invalid arguments throw ModelOutputError with a message that says what to
 * change, and `callTool` turns that into an error observation.
 */
export interface Tool<I extends z.ZodType = z.ZodType, R = unknown> {
  name: string;
  description: string;
  input: I;
  run: (session: ToolSession, args: z.infer<I>) => { result: R; observation: string };
}

export const defineTool = <I extends z.ZodType>(tool: Tool<I, unknown>): Tool<I, unknown> => tool;

export type ToolOutcome =
  | { ok: true; tool: string; result: unknown; observation: string }
  | { ok: false; tool: string; error: string; observation: string };

/** Never throws past the tool boundary, except for a hexa bug (InvariantError). */
export const callTool = (tools: readonly Tool[], session: ToolSession, name: string, raw: unknown): ToolOutcome => {
  const call = parseToolCall(tools, name, raw);
  if ("error" in call) return { ok: false, tool: name, error: call.error, observation: `ERROR: ${call.error}` };
  try {
    const { result, observation } = call.tool.run(session, call.args);
    return { ok: true, tool: name, result, observation };
  } catch (e) {
    if (e instanceof ModelOutputError) return { ok: false, tool: name, error: e.message, observation: `ERROR: ${e.message}` };
    if (e instanceof HexaError && e.name === "ConfigError") {
      return { ok: false, tool: name, error: e.message, observation: `ERROR: ${e.message}` };
    }
    throw e;
  }
};
