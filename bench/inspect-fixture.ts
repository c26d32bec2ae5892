/**
 * bench/inspect.ts's LLM-sized run: a copy of a heuristic run whose every episode has `LLM_TURNS` turns with
 * observations of `LLM_OBSERVATION_CHARS` characters, the size an LLM actor's episodes reach, so the report's
 * build and drawing are measured at that size without a model.
 */
import { cpSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";

export const LLM_TURNS = 25;
export const LLM_OBSERVATION_CHARS = 3500;

interface Step {
  turn: number;
  observation: string;
  [k: string]: unknown;
}

/** `text` repeated (separated by newlines) and cut to exactly `chars` characters. */
export const padTo = (text: string, chars: number): string => {
  const unit = text === "" ? "." : text;
  return `${unit}\n`.repeat(Math.ceil(chars / (unit.length + 1))).slice(0, chars);
};

/** The steps cycled to `turns` turns, each observation padded to `chars`. */
export const llmSizedSteps = (steps: readonly Step[], turns = LLM_TURNS, chars = LLM_OBSERVATION_CHARS): Step[] =>
  steps.length === 0
    ? []
    : Array.from({ length: turns }, (_, i) => ({ ...steps[i % steps.length]!, turn: i + 1, observation: padTo(steps[i % steps.length]!.observation, chars) }));

/**
 * Copies the run at `from` into the folder `into` (under its own name: a run directory is named by its run id)
 * with every episode made LLM-sized, without its report; returns the copy.
 */
export const llmSizedCopy = (from: string, into: string): string => {
  const to = join(into, basename(from));
  cpSync(from, to, { recursive: true });
  rmSync(join(to, "report.html"), { force: true });
  const file = join(to, "episodes.jsonl");
  const lines = readFileSync(file, "utf8")
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((l) => {
      const e = JSON.parse(l) as { trajectory: { steps: Step[]; turns: number } };
      e.trajectory.steps = llmSizedSteps(e.trajectory.steps);
      e.trajectory.turns = e.trajectory.steps.length;
      return JSON.stringify(e);
    });
  writeFileSync(file, `${lines.join("\n")}\n`);
  return to;
};
