import type { LevelInstance } from "../levels/interphyre/instance.ts";
import { SUCCESS_HOLD_S, TIME_STEP_S } from "../src/sim/constants.ts";

const STEPS_PER_S = Math.round(1 / TIME_STEP_S);
const HOLD_STEPS = Math.round(SUCCESS_HOLD_S / TIME_STEP_S);
import type { Tool } from "../tools/define-tool.ts";

export interface PromptInput {
  instance: LevelInstance;
  tools: readonly Tool[];
  maxTurns: number;
  horizon: number;
  /** The retriever's block of skills and mistakes; empty for plain ReAct. */
  skillPrefix?: string;
  /** Reflexion's reflections from earlier trials of this seed. */
  reflections?: readonly string[];
  /** Extra sentence for a baseline (Direct: look once, then commit). */
  protocol?: string;
}

/**
 * The actor's system prompt, generated from the same values the harness enforces (method.md §9: prompts must
 * never contradict the harness): the turn budget, the horizon, the bounds and the tool list come from config.
 */
export const systemPrompt = (p: PromptInput): string => {
  const { instance: inst } = p;
  const b = inst.bounds;
  const lines = [
    "You are an experimentalist solving a 2-D physics puzzle by running experiments in a simulator.",
    "",
    `## The puzzle: ${inst.level} (seed ${inst.seed})`,
    inst.description,
    `Success: ${inst.goal[0]} and ${inst.goal[1]} stay in contact for ${SUCCESS_HOLD_S} s (${HOLD_STEPS} steps) within ${p.horizon} steps (${STEPS_PER_S} steps = 1 s).`,
    "",
    "## Your action",
    `You place one red ball, then the world runs. Choose x in [${b.x[0]}, ${b.x[1]}], y in [${b.y[0]}, ${b.y[1]}] (y points up; gravity pulls down) and radius in [${b.radius[0]}, ${b.radius[1]}] (the level's default is ${inst.defaultRadius.toFixed(2)}).`,
    "The ball must lie inside the world and must not touch any object; an invalid placement is rejected and not simulated.",
    "",
    "## Rules of the episode",
    `You have at most ${p.maxTurns} turns. Each turn, write a short thought and then make exactly one tool call; every turn counts, including invalid calls and calls that only read information.`,
    "If a full rollout (simulate_action) succeeds, the episode ends at once as a success with that placement.",
    "Call finish(x, y, radius) to commit an answer; it is scored by a full rollout. If the turns run out, the episode fails.",
    p.protocol ?? "",
    "",
    "## Tools",
    ...p.tools.map((t) => `- ${t.name}: ${t.description}`),
  ];
  if (p.skillPrefix) lines.push("", p.skillPrefix);
  if (p.reflections && p.reflections.length > 0) {
    lines.push("", "## Reflections from your earlier attempts at this puzzle", ...p.reflections.map((r, i) => `${i + 1}. ${r}`));
  }
  return lines.filter((l, i, all) => !(l === "" && all[i - 1] === "")).join("\n").trim();
};

export const taskMessage = (inst: LevelInstance, maxTurns: number): string =>
  `Solve ${inst.level} seed ${inst.seed}: make ${inst.goal[0]} touch ${inst.goal[1]} for ${SUCCESS_HOLD_S} s. You have ${maxTurns} turns; start experimenting.`;

export const NUDGE =
  "You did not call a tool. Each turn must end with exactly one tool call (this turn still counted). Call a tool now.";
