import { ConfigError } from "../src/errors.ts";
import type { Tool } from "./define-tool.ts";
import check_placement from "./check_placement.ts";
import get_level_state from "./get_level_state.ts";
import simulate_action from "./simulate_action.ts";

/** Every tool the actor may call, keyed by the name the model sees. A new tool is one file plus one line here. */
export const tools = {
  get_level_state,
  check_placement,
  simulate_action,
} as const satisfies Record<string, Tool>;

export type ToolName = keyof typeof tools;

export const listTools = (): ToolName[] => Object.keys(tools) as ToolName[];

export const getTool = (name: string): Tool => {
  if (!Object.hasOwn(tools, name)) throw new ConfigError(`unknown tool '${name}'; known: ${listTools().join(", ")}`);
  return tools[name as ToolName];
};
