import { z } from "zod";
import { MAX_ARGS_DEPTH } from "../llm/tool-args.ts";
import { STORED_TEXT_CHARS, storedText } from "../util/cut-text.ts";
import { valueDepth } from "../util/json-depth.ts";

/** One turn: the thought before the tool call, the call, and what the tool answered. */
export const TrajectoryStep = z.object({
  turn: z.number().int().min(1),
  thought: z.string(),
  tool: z.string().describe("tool name as called, or '(none)' when the model made no tool call"),
  args: z.unknown(),
  observation: z.string(),
  ok: z.boolean().describe("the tool ran and returned a result (false: error observation or no call)"),
  ms: z.number().describe("tool execution time, excluding the model"),
  spent: z.number().int().min(1).optional().describe("units of the family's budget the call used (e.g. trainings sent); absent: none"),
});
export type TrajectoryStep = z.infer<typeof TrajectoryStep>;

/** Arguments as stored: within STORED_TEXT_CHARS as JSON, else marked as cut like the actor's context does (agents/context.ts). */
const storedArgs = (args: unknown): unknown => {
  if (valueDepth(args, MAX_ARGS_DEPTH) > MAX_ARGS_DEPTH) return { truncated_arguments: `(not kept: nested deeper than ${MAX_ARGS_DEPTH} levels)` };
  const text = JSON.stringify(args) ?? "";
  return text.length <= STORED_TEXT_CHARS ? args : { truncated_arguments: storedText(text) };
};

/** A step as a run keeps it: its thought, observation and arguments each within STORED_TEXT_CHARS, a cut one saying how much was cut. */
export const storedStep = (step: TrajectoryStep): TrajectoryStep => ({
  ...step,
  thought: storedText(step.thought),
  observation: storedText(step.observation),
  args: storedArgs(step.args),
});

/** The r(τ) categories of docs/spec/method.md §2 (agents/reward.ts maps an episode to one); stored with each episode. */
export const RewardCategory = z.enum(["fast_success", "success", "slow_success", "exploratory_failure", "early_abandon_failure"]);
export type RewardCategory = z.infer<typeof RewardCategory>;

/** "context": the request outgrew the model's context (a failed episode, with what to change in `error`). */
export const StopReason = z.enum(["success", "finish", "budget", "error", "context"]);
export type StopReason = z.infer<typeof StopReason>;

export const EpisodeUsage = z.object({
  input: z.number().int(),
  output: z.number().int(),
  cached: z.number().int(),
  calls: z.number().int(),
  costUsd: z.number(),
});
export type EpisodeUsage = z.infer<typeof EpisodeUsage>;

/** Version 2 (docs/spec/method.md §10): the family's `action` replaced version 1's Interphyre-shaped `finalAction {x, y, radius}`. */
export const TRAJECTORY_SCHEMA_VERSION = 2;

const TrajectoryV2 = z.object({
  schemaVersion: z.literal(TRAJECTORY_SCHEMA_VERSION),
  level: z.string(),
  seed: z.number().int(),
  agent: z.string().describe("react | direct | reflexion | hexa | heuristic (no LLM)"),
  model: z.string().describe("the model name the server reported, or 'none (heuristic)'"),
  success: z.boolean(),
  turns: z.number().int().describe("turns used; an unsolved episode counts the whole budget"),
  maxTurns: z.number().int(),
  action: z.unknown().describe("the committed or auto-finished action in the family's own shape (validated by its action schema); null when none"),
  score: z.number().optional().describe("the family's continuous outcome of the committed action, where it has one (e.g. F of the final policy)"),
  steps: z.array(TrajectoryStep),
  usage: EpisodeUsage,
  wallMs: z.number(),
  stopReason: StopReason,
  error: z.string().optional(),
});

/** Reads both versions: a version-1 record (run directories and shipped files made before the family seam) is lifted to version 2. */
export const Trajectory = z.preprocess((raw) => {
  if (raw === null || typeof raw !== "object" || (raw as { schemaVersion?: unknown }).schemaVersion !== 1) return raw;
  const { finalAction, ...rest } = raw as Record<string, unknown>;
  return { ...rest, schemaVersion: TRAJECTORY_SCHEMA_VERSION, action: finalAction ?? null };
}, TrajectoryV2);
export type Trajectory = z.infer<typeof TrajectoryV2>;

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

/** Turns an episode counts (docs/spec/method.md §1.1): the turns used on success, the whole budget T otherwise. */
export const countedTurns = (success: boolean, used: number, maxTurns: number): number => (success ? used : maxTurns);
