import { keyedRegistry } from "../../../src/family/registry.ts";
import type { InterphyreTool } from "./interphyre-tool.ts";
import check_placement from "./check_placement.ts";
import describe_scene_geometry from "./describe_scene_geometry.ts";
import finish from "./finish.ts";
import get_contact_log from "./get_contact_log.ts";
import get_level_state from "./get_level_state.ts";
import intervene from "./intervene.ts";
import predict_first_contact from "./predict_first_contact.ts";
import simulate_action from "./simulate_action.ts";
import simulate_partial from "./simulate_partial.ts";
import snapshot from "./snapshot.ts";
import trace_objects from "./trace_objects.ts";

/** Every tool the actor may call, keyed by the name the model sees. A new tool is one file plus one line here. */
export const tools = {
  get_level_state,
  check_placement,
  simulate_action,
  describe_scene_geometry,
  simulate_partial,
  get_contact_log,
  trace_objects,
  predict_first_contact,
  snapshot,
  intervene,
  finish,
} as const satisfies Record<string, InterphyreTool>;

export type ToolName = keyof typeof tools;

const registry = keyedRegistry<InterphyreTool, ToolName>("tool", tools);

export const listTools = registry.list;

export const getTool = registry.get;

/**
 * The tool set is chosen per run. `paper`: the HExA paper's harness (its shared tools plus the geometry,
 * trace and first-contact extras); `extended`: hexa's, which adds the placement check, snapshots and
 * interventions.
 */
const PAPER_TOOLS = [
  "get_level_state",
  "simulate_action",
  "simulate_partial",
  "get_contact_log",
  "finish",
  "describe_scene_geometry",
  "trace_objects",
  "predict_first_contact",
] as const;

export const TOOL_SETS = {
  paper: PAPER_TOOLS,
  extended: [...PAPER_TOOLS, "check_placement", "snapshot", "intervene"],
} as const satisfies Record<string, readonly ToolName[]>;

const toolSets = keyedRegistry<readonly ToolName[], keyof typeof TOOL_SETS>("tool set", TOOL_SETS);

export const toolSet = (name: string): InterphyreTool[] => toolSets.get(name).map((t) => tools[t]);
