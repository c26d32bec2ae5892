import type { z } from "zod";
import type { ToolProgress, ToolResult } from "../src/family/task-env.ts";

/**
 * What a tool's `run` gives back: the text the model sees, the structured result, and the family's ending rule.
 * Dispatch tags it with the tool's name (`DispatchOutcome`, tools/dispatch.ts); a family's `TaskEnv.call` turns that
 * into the `ToolResult` the generic agent reads (src/family/task-env.ts).
 */
export type ToolRunOutput = Pick<ToolResult, "observation" | "result" | "ends" | "pinned" | "compact">;

/**
 * One tool the actor may call, in any family: the zod schema is both the model's contract and the parser
 * (docs/spec/style.md). `run` gets the family's session (what the episode's tools share); it may be async (a
 * training runs for minutes). Invalid arguments throw ModelOutputError with a message that says what to change.
 */
export interface Tool<S, I extends z.ZodType = z.ZodType> {
  name: string;
  description: string;
  input: I;
  run: (session: S, args: z.infer<I>, onProgress?: (p: ToolProgress) => void) => ToolRunOutput | Promise<ToolRunOutput>;
}

/** A family's tool definer, bound to its session type: `export const defineRewardTool = toolDefiner<RewardSession>();`. */
export const toolDefiner =
  <S>() =>
  <I extends z.ZodType>(tool: Tool<S, I>): Tool<S, I> =>
    tool;
