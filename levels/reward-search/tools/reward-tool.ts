import type { z } from "zod";
import { toolDefiner, type Tool } from "../../../tools/define-tool.ts";
import { callTool, runParsed, type DispatchOutcome } from "../../../tools/dispatch.ts";
import { InvariantError } from "../../../src/errors.ts";
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
  return withSpent(s, before, await callTool(tools, s, name, raw, onProgress ? { onProgress } : {}));
};

/** The outcome as a ToolResult, with the trainings the call sent as its `spent`. */
const withSpent = (s: RewardSession, before: number, { tool: _tool, ...out }: DispatchOutcome): ToolResult =>
  s.trainings > before ? { ...out, spent: s.trainings - before } : out;

/** `callRewardTool` for arguments the agent's tool node already parsed with the tool's schema: no second parse. */
export const runParsedRewardTool = async (
  tools: readonly RewardTool[],
  s: RewardSession,
  name: string,
  args: unknown,
  onProgress?: (p: ToolProgress) => void,
): Promise<ToolResult> => {
  const tool = tools.find((t) => t.name === name);
  if (!tool) throw new InvariantError(`reward search: a parsed call of '${name}', which the task's tool set lacks`);
  const before = s.trainings;
  return withSpent(s, before, await runParsed(tool, s, args, onProgress ? { onProgress } : {}));
};
