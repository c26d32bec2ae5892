import type { StepEvidence } from "../../src/family/family-words.ts";
import type { TrajectoryStep } from "../../src/store/trajectory.ts";
import { createInstance } from "./instance.ts";
import { getLevel } from "./levels/index.ts";
import { n, pos } from "./tools/common.ts";
import { ACTION_OBJECT } from "./world/constants.ts";
import type { SceneObject } from "./world/scene.ts";

/**
 * What the evolver reads of an Interphyre trajectory (docs/spec/method.md §4): the scene in one line, and of each
 * observation its outcome lines — the head (SUCCESS / FAILURE / what was measured), the goal objects' lines, the
 * red ball's contacts — with the goal objects first, whatever order the tool listed objects in.
 */

/** Lines and characters of one observation the evolver sees: a rollout's outcome fits in a few short lines. */
const MAX_LINES = 8;
const LINE_CHARS = 240;
/** Characters of a call's arguments shown (an intervention list can be long). */
const ARGS_CHARS = 300;

const cut = (s: string, max: number) => (s.length > max ? `${s.slice(0, max)}…` : s);

const shape = (o: SceneObject): string => {
  switch (o.type) {
    case "ball":
      return `ball r ${n(o.radius)}`;
    case "bar":
      return `bar ${n(o.length)} long, ${n(o.angle, 1)}°`;
    case "basket":
      return `basket ${n(o.top_width)} wide`;
  }
};

/** The scene of a seed in one line: the goal, the goal objects' places and sizes, then every other object's place. */
export const interphyreScene = (level: string, seed: number): string => {
  const inst = createInstance(level, seed);
  const [a, b] = inst.goal;
  const at = (name: string, o: SceneObject) => `${name} ${shape(o)}${o.dynamic ? "" : " static"} at ${pos(o)}`;
  const goal = inst.goal.flatMap((name) => (inst.scene[name] ? [at(name, inst.scene[name])] : []));
  const others = Object.entries(inst.scene)
    .filter(([name]) => !inst.goal.includes(name))
    .map(([name, o]) => at(name, o));
  return `${level} seed ${seed}: ${a} must touch ${b} for 3 s; ${[...goal, ...others].join("; ")}`;
};

/** A name as a whole word of a line (green_ball, not green_ball_2). */
const names = (line: string, name: string) => new RegExp(`(^|[^A-Za-z0-9_])${name}([^A-Za-z0-9_]|$)`).test(line);

const OUTCOME_WORDS = /\b(SUCCESS|FAILURE|VALID|INVALID|ERROR|intervened|unchanged|Touching now|No contact|First contact)\b/;

const placement = (args: unknown): string | undefined => {
  const a = args as { x?: unknown; y?: unknown; radius?: unknown } | null;
  if (typeof a?.x !== "number" || typeof a.y !== "number" || typeof a.radius !== "number") return undefined;
  const rest = Object.entries(a).filter(([k]) => k !== "x" && k !== "y" && k !== "radius");
  return `x=${n(a.x)}, y=${n(a.y)}, radius=${n(a.radius)}${rest.length ? `, ${cut(JSON.stringify(Object.fromEntries(rest)), ARGS_CHARS)}` : ""}`;
};

/** A kept line with the indented lines under it (a trace's waypoints), and where its goal object stands in the goal. */
interface Block {
  lines: string[];
  rank: number;
}

/**
 * The outcome lines of one observation: its first line, then the lines that name a goal object (a line indented
 * under a kept line goes with it), then the red ball's and the outcome words' lines, at most MAX_LINES.
 */
const outcomeLines = (observation: string, goal: readonly string[]): string[] => {
  const [head = "", ...rest] = observation.split("\n");
  const blocks: Block[] = [];
  let last: Block | undefined;
  for (const line of rest) {
    if (/^\s+\S/.test(line) && !line.trimStart().startsWith("-")) {
      last?.lines.push(line.trim());
      continue;
    }
    const rank = goal.findIndex((g) => names(line, g));
    const kept = rank >= 0 || names(line, ACTION_OBJECT) || OUTCOME_WORDS.test(line);
    last = kept ? { lines: [line.trim()], rank: rank >= 0 ? rank : goal.length } : undefined;
    if (last) blocks.push(last);
  }
  // Goal objects first, in the goal's order (a tool may list objects alphabetically); Array.prototype.sort is stable.
  const lines = [head, ...blocks.sort((a, b) => a.rank - b.rank).flatMap((b) => b.lines)].filter((l) => l.trim() !== "");
  const shown = lines.slice(0, MAX_LINES).map((l) => cut(l, LINE_CHARS));
  return lines.length > MAX_LINES ? [...shown, `… ${lines.length - MAX_LINES} more outcome lines`] : shown;
};

export const interphyreEvidence = (level: string, step: TrajectoryStep): StepEvidence => {
  const goal = getLevel(level).goal;
  const where = placement(step.args);
  const action = step.tool === "(none)" ? "(no tool call)" : `${step.tool} ${where ?? cut(JSON.stringify(step.args ?? {}), ARGS_CHARS)}`;
  return { action, outcome: outcomeLines(step.observation, goal) };
};
