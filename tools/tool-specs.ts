import { z } from "zod";
import type { ToolSpec } from "../src/llm/chat-model.ts";

/** The model's view of a zod-declared tool: its name, description and the JSON schema of its input. */
export const toolSpecs = (tools: readonly { name: string; description: string; input: z.ZodType }[]): ToolSpec[] =>
  tools.map((t) => ({ name: t.name, description: t.description, parameters: z.toJSONSchema(t.input, { io: "input" }) as Record<string, unknown> }));
