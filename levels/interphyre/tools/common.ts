import { z } from "zod";
import { ModelOutputError } from "../../../src/errors.ts";
import { ACTION_OBJECT, WALL_NAMES } from "../world/constants.ts";
import { checkPlacement } from "../world/placement.ts";
import type { Action, LiveObject } from "../world/simulation.ts";
import type { InterphyreSession } from "./interphyre-tool.ts";
import type { ObservationSection } from "../../../src/family/task-env.ts";
import { cuttable, kept } from "../../../src/family/observation.ts";

/** The placement arguments most tools share. */
export const placementFields = {
  x: z.number().describe("red ball centre x, metres; the world spans -5..5"),
  y: z.number().describe("red ball centre y, metres; y points up, -5..5"),
  radius: z.number().describe("red ball radius, metres; clipped to the level's range (0.1..1.5 unless stated)"),
};

/** The validated action, or a ModelOutputError that says what to change (the placement is not simulated). */
export const placeOrExplain = (session: InterphyreSession, a: { x: number; y: number; radius: number }): Action => {
  const p = checkPlacement(session.instance.scene, a, session.instance.bounds);
  if (!p.ok) throw new ModelOutputError(`invalid placement (x=${n(a.x)}, y=${n(a.y)}, radius=${n(a.radius)}): ${p.reason}`);
  return p.action;
};

/** Said in the observation when the radius was clipped to the level's range, so the actor knows which ball it placed. */
export const clipNote = (asked: { radius: number }, placed: Action): string =>
  placed.radius !== asked.radius ? `Radius clipped from ${n(asked.radius)} to ${n(placed.radius)} (the level's range).` : "";

export const stepsField = (session: InterphyreSession, raw: number | undefined, field = "steps"): number => {
  const steps = raw ?? session.horizon;
  if (!Number.isInteger(steps) || steps < 1 || steps > session.horizon) {
    throw new ModelOutputError(`${field}=${raw} must be an integer in [1, ${session.horizon}] (the horizon); choose one in range`);
  }
  return steps;
};

export const knownObject = (names: readonly string[], name: string, field = "object"): string => {
  if (!names.includes(name)) throw new ModelOutputError(`${field}: unknown object '${name}'; known: ${names.join(", ")}`);
  return name;
};

/** Numbers for observations: short, no "-0". */
export const n = (v: number, digits = 2): string => {
  const s = v.toFixed(digits);
  return /^-0\.?0*$/.test(s) ? s.slice(1) : s;
};

export const pos = (o: { x: number; y: number }) => `(${n(o.x)}, ${n(o.y)})`;

export const motion = (o: LiveObject) =>
  `at ${pos(o)} v=(${n(o.vx)}, ${n(o.vy)}) angle=${n(o.angle, 1)}°${o.dynamic ? (o.awake ? "" : " resting") : " static"}`;

/** Rounded copies for structured results. */
export const round = (v: number, digits = 4) => Math.round(v * 10 ** digits) / 10 ** digits;
export const roundState = (o: LiveObject) => ({
  x: round(o.x),
  y: round(o.y),
  angle: round(o.angle, 2),
  vx: round(o.vx),
  vy: round(o.vy),
  angular_velocity: round(o.angular_velocity),
  resting: !o.awake,
  dynamic: o.dynamic,
});

/** Names a tool argument may use: the level's objects and the red ball, and the four walls where they make sense. */
export const objectNames = (session: InterphyreSession, withWalls: boolean): string[] => [
  ...Object.keys(session.instance.scene),
  ACTION_OBJECT,
  ...(withWalls ? WALL_NAMES : []),
];

/** Observation lines for the dynamic objects of a state, at most `cap` of them. */
export const motionLines = (state: Record<string, LiveObject>, cap = 12): string[] => {
  const dynamic = Object.entries(state).filter(([, o]) => o.dynamic);
  const lines = dynamic.slice(0, cap).map(([name, o]) => `- ${name} ${motion(o)}`);
  return dynamic.length > cap ? [...lines, `- … ${dynamic.length - cap} more dynamic objects not shown`] : lines;
};

/**
 * Object lines ("- name …") as sections for compaction (docs/spec/interphyre.md §5.2): a goal object's line is kept,
 * and each run of other objects' lines is one section that is cut only at line ends.
 */
export const objectSections = (lines: readonly string[], goal: readonly string[]): ObservationSection[] => {
  const out: ObservationSection[] = [];
  let run: string[] = [];
  const flush = () => {
    if (run.length > 0) out.push(cuttable(run.join("\n")));
    run = [];
  };
  for (const line of lines) {
    if (goal.some((g) => line.startsWith(`- ${g} `))) {
      flush();
      out.push(kept(line));
    } else run.push(line);
  }
  flush();
  return out;
};
