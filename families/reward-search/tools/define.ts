import type { z } from "zod";
import type { ToolProgress, ToolResult } from "../../../src/family/task-env.ts";
import { ModelOutputError } from "../../../src/errors.ts";
import { parseToolCall } from "../../../src/family/tool-call.ts";
import type { RewardSession, RewardToolOutput } from "./session.ts";

/** One reward-search tool: a zod schema (the model's contract and the parser) and an async run (a training takes minutes). */
export interface RewardTool<I extends z.ZodType = z.ZodType> {
  name: string;
  description: string;
  input: I;
  run: (session: RewardSession, args: z.infer<I>, onProgress?: (p: ToolProgress) => void) => Promise<RewardToolOutput>;
}

export const defineRewardTool = <I extends z.ZodType>(tool: RewardTool<I>): RewardTool<I> => tool;

const failed = (error: string): ToolResult => ({ ok: false, error, observation: `ERROR: ${error}` });

/**
 * Never throws past the tool boundary for the model's mistakes (bad arguments, broken reward code: an error
 * observation); a broken trainer (TrainerError, a ConfigError) or a hexa bug does throw: the user must act.
 */
export const callRewardTool = async (tools: readonly RewardTool[], s: RewardSession, name: string, raw: unknown, onProgress?: (p: ToolProgress) => void): Promise<ToolResult> => {
  const call = parseToolCall(tools, name, raw);
  if ("error" in call) return failed(call.error);
  const before = s.trainings;
  const spent = (): { spent?: number } => (s.trainings > before ? { spent: s.trainings - before } : {});
  try {
    const out = await call.tool.run(s, call.args, onProgress);
    return { ok: true, ...out, ...spent() };
  } catch (e) {
    // A finish whose code failed to train still spent the training.
    if (e instanceof ModelOutputError) return { ...failed(e.message), ...spent() };
    throw e;
  }
};
