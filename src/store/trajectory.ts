import { z } from "zod";

/** One turn: the thought before the tool call, the call, and what the tool answered. */
export const TrajectoryStep = z.object({
  turn: z.number().int().min(1),
  thought: z.string(),
  tool: z.string().describe("tool name as called, or '(none)' when the model made no tool call"),
  args: z.unknown(),
  observation: z.string(),
  ok: z.boolean().describe("the tool ran and returned a result (false: error observation or no call)"),
  ms: z.number().describe("tool execution time, excluding the model"),
});
export type TrajectoryStep = z.infer<typeof TrajectoryStep>;

export const ActionRecord = z.object({ x: z.number(), y: z.number(), radius: z.number() });

export const StopReason = z.enum(["success", "finish", "budget", "error"]);
export type StopReason = z.infer<typeof StopReason>;

export const EpisodeUsage = z.object({
  input: z.number().int(),
  output: z.number().int(),
  cached: z.number().int(),
  calls: z.number().int(),
  costUsd: z.number(),
});
export type EpisodeUsage = z.infer<typeof EpisodeUsage>;

/** An episode's full record (schema-versioned, parsed on read): what the evolver learns from. */
export const Trajectory = z.object({
  schemaVersion: z.literal(1),
  level: z.string(),
  seed: z.number().int(),
  agent: z.string().describe("react | direct | reflexion | hexa | heuristic (no LLM)"),
  model: z.string().describe("the model name the server reported, or 'none (heuristic)'"),
  success: z.boolean(),
  turns: z.number().int().describe("turns used; an unsolved episode counts the whole budget"),
  maxTurns: z.number().int(),
  finalAction: ActionRecord.nullable(),
  steps: z.array(TrajectoryStep),
  usage: EpisodeUsage,
  wallMs: z.number(),
  stopReason: StopReason,
  error: z.string().optional(),
});
export type Trajectory = z.infer<typeof Trajectory>;

export const NO_USAGE: EpisodeUsage = { input: 0, output: 0, cached: 0, calls: 0, costUsd: 0 };

export const sumUsage = (a: EpisodeUsage, b: EpisodeUsage): EpisodeUsage => ({
  input: a.input + b.input,
  output: a.output + b.output,
  cached: a.cached + b.cached,
  calls: a.calls + b.calls,
  costUsd: a.costUsd + b.costUsd,
});

/** One model call as a usage record. */
export const callUsage = (u: { input: number; output: number; cached: number }, costUsd: number): EpisodeUsage => ({ ...u, calls: 1, costUsd });

/** Turns an episode counts (method.md §1): the turns used on success, the whole budget T otherwise. */
export const countedTurns = (success: boolean, used: number, maxTurns: number): number => (success ? used : maxTurns);
