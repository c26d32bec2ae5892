import { z } from "zod";
import type { AssistantTurn, ToolCall, Usage } from "./chat-model.ts";

/** Zod twins of the record form's types, for the files that store turns (cache, audit log) and parse them on read. */
export const ToolCallSchema = z.object({
  id: z.string(),
  name: z.string(),
  args: z.unknown(),
  rawArgs: z.string(),
  argsError: z.string().optional(),
});

export const UsageSchema = z.object({
  input: z.number().int().min(0),
  output: z.number().int().min(0),
  cached: z.number().int().min(0),
  estimated: z.boolean().optional(),
});

export const AssistantTurnSchema = z.object({
  text: z.string(),
  toolCalls: z.array(ToolCallSchema),
  reasoning: z.string().optional(),
  problem: z.string().optional(),
  usage: UsageSchema,
  model: z.string(),
  latencyMs: z.number().min(0),
  fromCache: z.boolean(),
});

// Compile-time check that the schemas and the record form agree in both directions.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const agree: [
  Same<z.infer<typeof ToolCallSchema>, ToolCall>,
  Same<z.infer<typeof UsageSchema>, Usage>,
  Same<z.infer<typeof AssistantTurnSchema>, AssistantTurn>,
] = [true, true, true];
void agree;
