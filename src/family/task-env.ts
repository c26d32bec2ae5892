import type { z } from "zod";
import type { ToolSpec } from "../llm/chat-model.ts";

/** A long tool's report while it runs (a training's iteration, a rollout's step), for progress bars. */
export interface ToolProgress {
  tool: string;
  done: number;
  total: number;
  /** One short line, e.g. "F 212.4 at 40,960 steps". */
  note?: string;
}

/**
 * One part of an observation, for compacting old turns (docs/spec/method.md §1.2): the family, which knows what its
 * observations mean, marks what must survive; the actor cuts only inside the other parts, never across them.
 */
export interface ObservationSection {
  text: string;
  /** Kept whole however old the turn (an outcome line, a goal object's final state). */
  keep: boolean;
  /** What separates the section's items, which a cut never splits (" | " between waypoints); default a line end. */
  separator?: string;
}

/** What one tool call gave back, as a generic agent reads it (`TaskEnv.call`; a tool's own `run` gives a `ToolRunOutput`, tools/define-tool.ts). */
export interface ToolResult {
  ok: boolean;
  /** The text the model sees. */
  observation: string;
  /** The structured result (the family's own shape); absent on an error. */
  result?: unknown;
  error?: string;
  /** The family's finish and auto-finish rule: this call ends the episode, with the family's action. */
  ends?: { reason: "success" | "finish"; success: boolean; action: unknown; score?: number };
  /** Units of the family's budget the call used (reward search: trainings sent), an error observation's included. */
  spent?: number;
  /** Scene information that stays verbatim in the context however old. */
  pinned?: boolean;
  /** The observation as sections whose texts, joined by newlines, are the observation; absent: one cuttable text. */
  compact?: readonly ObservationSection[];
}

/** The domain text of an episode's prompt (docs/spec/method.md §9: generated from the config the harness enforces). */
export interface TaskPrompt {
  /** What the task is called in sentences: "puzzle", "task". */
  noun: string;
  /** The role line, e.g. "You are an experimentalist solving a 2-D physics puzzle …". */
  role: string;
  /** The task's sections (the puzzle, the action), as markdown lines. */
  sections: readonly string[];
  /** Family rules added to the generic turn rules: how an episode ends by success or by finish. */
  rules: readonly string[];
  /** The first user message. */
  task: string;
  /** What one experiment is called in the HExA actor's diagnostic addendum ("simulation"); default "experiment". */
  experiment?: string;
}

/**
 * One task instance opened for an episode: its tools and prompt, and the call that runs a tool. Tools are
 * async (a training runs for minutes); `call` never throws for a bad call from the model — that is an error
 * observation — only for a hexa bug (InvariantError) or a broken host (the physics worker died).
 */
export interface TaskEnv {
  readonly level: string;
  readonly seed: number;
  readonly tools: readonly ToolSpec[];
  readonly prompt: TaskPrompt;
  call(name: string, args: unknown, onProgress?: (p: ToolProgress) => void): Promise<ToolResult>;
  /**
   * Where the family declares its tools in zod (tools/define-tool.ts): each tool's schema by name, which the agent's
   * tool node parses a call with, and the call that runs those parsed arguments without parsing them again. A call
   * the schema refuses still goes to `call`, which answers it in the family's words.
   */
  readonly parsed?: ParsedCalls;
  close(): Promise<void>;
}

/** A family's zod schemas for its tools and the call for arguments already parsed with them (`TaskEnv.parsed`). */
export interface ParsedCalls {
  readonly inputs: Readonly<Record<string, z.ZodType>>;
  call(name: string, args: unknown, onProgress?: (p: ToolProgress) => void): Promise<ToolResult>;
}
