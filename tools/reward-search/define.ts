import { z } from "zod";
import type { ToolProgress, ToolResult } from "../../agents/task-env.ts";
import { ModelOutputError } from "../../src/errors.ts";
import type { RewardSession, RewardToolOutput } from "./session.ts";

/** One reward-search tool: a zod schema (the model's contract and the parser) and an async run (a training takes minutes). */
export interface RewardTool<I extends z.ZodType = z.ZodType> {
  name: string;
  description: string;
  input: I;
  run: (session: RewardSession, args: z.infer<I>, onProgress?: (p: ToolProgress) => void) => Promise<RewardToolOutput>;
}

export const defineRewardTool = <I extends z.ZodType>(tool: RewardTool<I>): RewardTool<I> => tool;

const issue = (i: z.core.$ZodIssue) => `${i.path.join(".") || "arguments"}: ${i.message}`;
const failed = (error: string): ToolResult => ({ ok: false, error, observation: `ERROR: ${error}` });

/**
 * Never throws past the tool boundary for the model's mistakes (bad arguments, broken reward code: an error
 * observation); a broken trainer (TrainerError, a ConfigError) or a hexa bug does throw: the user must act.
 */
export const callRewardTool = async (tools: readonly RewardTool[], s: RewardSession, name: string, raw: unknown, onProgress?: (p: ToolProgress) => void): Promise<ToolResult> => {
  const tool = tools.find((t) => t.name === name);
  if (!tool) return failed(`unknown tool '${name}'; available: ${tools.map((t) => t.name).join(", ")}`);
  const parsed = tool.input.safeParse(raw ?? {});
  if (!parsed.success) return failed(`invalid arguments for ${name}: ${parsed.error.issues.map(issue).join("; ")}`);
  try {
    const out = await tool.run(s, parsed.data, onProgress);
    return { ok: true, ...out };
  } catch (e) {
    if (e instanceof ModelOutputError) return failed(e.message);
    throw e;
  }
};
