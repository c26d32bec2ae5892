import { z } from "zod";
import type { ToolSpec } from "../src/llm/chat-model.ts";

/** The model's view of a zod-declared tool: its name, description and the JSON schema of its input. */
export const toolSpecs = (tools: readonly { name: string; description: string; input: z.ZodType }[]): ToolSpec[] =>
  tools.map((t) => ({ name: t.name, description: t.description, parameters: z.toJSONSchema(t.input, { io: "input" }) as Record<string, unknown> }));

/** Each zod-declared tool's schema by name, for the agent's tool node to parse a call with (src/family/task-env.ts `parsed`). */
export const toolInputs = (tools: readonly { name: string; input: z.ZodType }[]): Record<string, z.ZodType> =>
  Object.fromEntries(tools.map((t) => [t.name, t.input]));
