import type { z } from "zod";
import { toolDefiner, type Tool } from "../../../tools/define-tool.ts";
import { callTool } from "../../../tools/dispatch.ts";
import type { ToolProgress, ToolResult } from "../../../src/family/task-env.ts";
import type { RewardSession } from "./session.ts";

/** One reward-search tool: a zod schema (the model's contract and the parser) and an async run (a training takes minutes). */
export type RewardTool<I extends z.ZodType = z.ZodType> = Tool<RewardSession, I>;

export const defineRewardTool = toolDefiner<RewardSession>();

/**
 * Never throws past the tool boundary for the model's mistakes (bad arguments, broken reward code: an error
 * observation); a broken trainer (TrainerError, a ConfigError) or a hexa bug does throw: the user must act.
 * The trainings the call sent are its `spent`, an error's included (a finish whose code failed still trained).
 */
export const callRewardTool = async (
  tools: readonly RewardTool[],
  s: RewardSession,
  name: string,
  raw: unknown,
  onProgress?: (p: ToolProgress) => void,
): Promise<ToolResult> => {
  const before = s.trainings;
  const { tool: _tool, ...out } = await callTool(tools, s, name, raw, onProgress ? { onProgress } : {});
  return s.trainings > before ? { ...out, spent: s.trainings - before } : out;
};
