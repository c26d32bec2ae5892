import type { ToolSpec } from "../src/llm/chat-model.ts";
import type { TaskPrompt } from "../src/family/task-env.ts";

export interface PromptInput {
  /** The family's domain text for this task instance. */
  prompt: TaskPrompt;
  tools: readonly Pick<ToolSpec, "name" | "description">[];
  maxTurns: number;
  /** The retriever's block of skills and mistakes; empty for plain ReAct. */
  skillPrefix?: string;
  /** Reflexion's reflections from earlier trials of this seed. */
  reflections?: readonly string[];
  /** Extra sentence for a baseline (Direct: look once, then commit). */
  protocol?: string;
}

/** Lines joined, with runs of blank lines made one and the ends trimmed. */
const joinLines = (lines: readonly string[]): string =>
  lines
    .filter((l, i, all) => !(l === "" && all[i - 1] === ""))
    .join("\n")
    .trim();

/**
 * The actor's system prompt before any additions, generated from the same values the harness enforces
 * (docs/spec/method.md §9: prompts must never contradict the harness): the turn budget and the tool list come
 * from config, the task's text and its ending rules from the family, a baseline's protocol among the rules.
 */
export const basePrompt = (p: Omit<PromptInput, "skillPrefix" | "reflections">): string =>
  joinLines([
    p.prompt.role,
    "",
    ...p.prompt.sections,
    "",
    "## Rules of the episode",
    `You have at most ${p.maxTurns} turns. Each turn, write a short thought and then make exactly one tool call; every turn counts, including invalid calls and calls that only read information.`,
    ...p.prompt.rules,
    p.protocol ?? "",
    "",
    "## Tools",
    ...p.tools.map((t) => `- ${t.name}: ${t.description}`),
  ]);

/** What an agent adds after the base prompt: the retriever's block (hexa) and Reflexion's reflections. */
export type PromptAdditions = Pick<PromptInput, "skillPrefix" | "reflections"> & { noun: string };

/** The base prompt with the additions after it (agents/middleware/prompt-additions.ts puts them there). */
export const withPromptAdditions = (base: string, a: PromptAdditions): string => {
  const lines = [base];
  if (a.skillPrefix) lines.push("", a.skillPrefix);
  if (a.reflections && a.reflections.length > 0) {
    lines.push("", `## Reflections from your earlier attempts at this ${a.noun}`, ...a.reflections.map((r, i) => `${i + 1}. ${r}`));
  }
  return joinLines(lines);
};

/**
 * The HExA actor's diagnostic addendum to its first user message (docs/spec/method.md §1.1, the paper's wording):
 * it makes the actor use its bank and leaves evidence the evolver can attribute. Baselines never get it.
 */
const diagnosticAddendum = (experiment = "experiment"): string =>
  `After every failed ${experiment}, look back at the learned skills above, pick the one that explains the failure (or whose condition applied) and name it in your next thought.`;

/** The first user message with the diagnostic addendum after it (given when the actor has a skill block). */
export const withDiagnosticAddendum = (task: string, experiment?: string): string => `${task}\n\n${diagnosticAddendum(experiment)}`;

export const NUDGE = "You did not call a tool. Each turn must end with exactly one tool call (this turn still counted). Call a tool now.";
