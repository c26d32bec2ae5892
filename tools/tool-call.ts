import type { z } from "zod";
import { MAX_ARGS_DEPTH } from "../src/llm/tool-args.ts";
import { valueDepth } from "../src/util/json-depth.ts";

/** What every zod-declared tool has, whatever its family: the name the model calls and the schema that parses. */
export interface DeclaredTool {
  name: string;
  input: z.ZodType;
}

const describeIssue = (issue: z.core.$ZodIssue): string => `${issue.path.join(".") || "arguments"}: ${issue.message}`;

/**
 * A model's call checked against the tool set before anything runs: the tool and its parsed arguments, or the
 * error the model is shown (an unknown tool, or the schema's issues with the field each concerns).
 */
export const parseToolCall = <T extends DeclaredTool>(tools: readonly T[], name: string, raw: unknown): { tool: T; args: unknown } | { error: string } => {
  const tool = tools.find((t) => t.name === name);
  if (!tool) return { error: `unknown tool '${name}'; available: ${tools.map((t) => t.name).join(", ")}` };
  // The adapter bounds what a server sends (src/llm/tool-args.ts); this holds for every role's model.
  if (valueDepth(raw, MAX_ARGS_DEPTH) > MAX_ARGS_DEPTH)
    return { error: `invalid arguments for ${name}: nested deeper than ${MAX_ARGS_DEPTH} levels; send one flat JSON object` };
  const parsed = tool.input.safeParse(raw ?? {});
  if (!parsed.success) return { error: `invalid arguments for ${name}: ${parsed.error.issues.map(describeIssue).join("; ")}` };
  return { tool, args: parsed.data };
};
