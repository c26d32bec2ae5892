import type { z } from "zod";
import type { LevelInstance } from "../instance.ts";
import type { ContactEvent } from "../world/contacts.ts";
import type { Snapshot } from "../world/snapshot.ts";
import type { Action } from "../world/simulation.ts";
import { HEXA_HARNESS_HORIZON_STEPS } from "../world/constants.ts";
import type { CreateEngine } from "../world/engine.ts";
import { createPlanckEngine } from "../world/planck-engine.ts";
import { toolDefiner, type Tool } from "../../../tools/define-tool.ts";
import { callToolSync, isConfigError, runParsedSync, type DispatchOutcome } from "../../../tools/dispatch.ts";
import { InvariantError } from "../../../src/errors.ts";

/** What the tools of one episode share: the task, the horizon, the engine, and the memory of earlier calls. */
export class InterphyreSession {
  /** Contact events of the last simulation any tool ran, for get_contact_log. */
  lastContacts: { action: Action; events: ContactEvent[] } | undefined;
  readonly snapshots = new Map<string, Snapshot>();
  private nextSnapshot = 1;

  constructor(
    readonly instance: LevelInstance,
    readonly horizon: number = HEXA_HARNESS_HORIZON_STEPS,
    /** Every world the tools build runs on it (loaded by `loadEngine`, world/engines.ts). */
    readonly engine: CreateEngine = createPlanckEngine,
  ) {}

  addSnapshot(s: Snapshot): string {
    const id = `snap_${this.nextSnapshot++}`;
    this.snapshots.set(id, s);
    return id;
  }
}

/** An Interphyre tool: pure over the world and synchronous (docs/spec/style.md). */
export type InterphyreTool<I extends z.ZodType = z.ZodType> = Tool<InterphyreSession, I>;

export const defineInterphyreTool = toolDefiner<InterphyreSession>();

export type { DispatchOutcome };

/**
 * `callToolSync` (synchronous) with Interphyre's error rule: never throws past the tool boundary, except for a hexa bug
 * (InvariantError); a ConfigError from the world (a bad value the model chose) is an observation too.
 */
export const callInterphyreTool = (tools: readonly InterphyreTool[], session: InterphyreSession, name: string, raw: unknown): DispatchOutcome =>
  callToolSync(tools, session, name, raw, { shownToModel: isConfigError });

/**
 * `callInterphyreTool` for a call the host already checked against the tool set and parsed with the tool's schema
 * (task-env.ts validateCall): the physics worker trusts it and runs the tool on the parsed arguments.
 */
export const runParsedInterphyreTool = (tools: readonly InterphyreTool[], session: InterphyreSession, name: string, args: unknown): DispatchOutcome => {
  const tool = tools.find((t) => t.name === name);
  if (!tool) throw new InvariantError(`physics worker: the host sent a call of '${name}', which this session's tool set lacks`);
  return runParsedSync(tool, session, args, { shownToModel: isConfigError });
};
