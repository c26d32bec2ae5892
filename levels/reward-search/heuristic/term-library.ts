import type { RewardTask } from "../task.ts";
import type { Term } from "./terms.ts";

/**
 * The generic term library of the heuristic proposer (docs/spec/reward-search.md §9): reward terms a practitioner
 * reaches for on any control task — progress along an axis, staying alive, reaching a goal, nearing a target,
 * rotation, posture, height, centring, velocity penalties, action cost — each chosen by matching the names of the
 * task's observation, info and action (and the direction its goal sentence names), never read from the task's
 * hand-written reward. A task's terms are the families that match; `base` marks the first design's terms.
 */

type Layout = Pick<RewardTask, "observation" | "info" | "actionNames" | "description">;

const t = (name: string, expr: string, weight: number, range: readonly [number, number], base: boolean): Term => ({ name, expr, weight, range, base });

const sumSquares = (prefix: string, names: readonly string[]) => `-(${names.map((n) => `${prefix}.${n} ** 2`).join(" + ")})`;
const anyOf = (names: readonly string[]) => names.map((n) => `info.${n}`).join(" || ");

/** The goal sentence of a description ("Goal: …"), or all of it. */
const goalOf = (description: string): string => /goal:\s*([^\n]*)/i.exec(description)?.[1] ?? description;

/** Whether a task's actions are discrete choices (no action cost then): the description says so. */
const isDiscrete = (l: Layout) => /\bdiscrete\b/i.test(l.description);

const GOOD_FLAGS = /^(healthy|balanced|alive|upright)$/;
const FAIL_FLAGS = /^(fell|out_of_bounds|crashed|fallen)$/;
const GOAL_FLAGS = /^(reached|reached_goal|landed|on_pad|success|at_goal)$/;
const DISTANCE = /distance/;
const ROTATION = /rotation/;
const HEIGHT = /(^|_)(height|z)$/;
const MAIN_ANGLE = /^(theta|angle|torso_angle|pole_angle)$/;
const CENTRE = /^(x|cart_position)$/;
const SPIN = /(_dot|angular_velocity)$/;
const CONTACT_COST = /contact_force/;

export const libraryTerms = (l: Layout): Term[] => {
  const goal = goalOf(l.description);
  const info = l.info;
  const obs = l.observation;
  const out: Term[] = [];

  const rotation = info.find((n) => ROTATION.test(n));
  const goals = info.filter((n) => GOAL_FLAGS.test(n));
  const distance = info.find((n) => DISTANCE.test(n));

  // Progress along the axis the goal names: +x unless it says backward (−x) or y; a velocity from info, else forward_velocity.
  const backward = /\bbackward|−x|-x\b/i.test(goal);
  const alongY = /\+y|along y|\by direction/i.test(goal);
  const velocity = info.find((n) => n === (alongY ? "y_velocity" : "x_velocity")) ?? info.find((n) => n === "forward_velocity");
  if (velocity) out.push(t("progress", `${backward ? "-" : ""}info.${velocity}`, 1, [0.3, 3], rotation === undefined));
  if (alongY && info.includes("x_velocity")) out.push(t("drift", "-(info.x_velocity ** 2)", 0.1, [0, 1], false));
  if (rotation) out.push(t("rotation", `info.${rotation}`, 1, [0.1, 50], true));

  const good = info.filter((n) => GOOD_FLAGS.test(n));
  const fail = info.filter((n) => FAIL_FLAGS.test(n));
  if (good.length) out.push(t("alive", `(${anyOf(good)}) ? 1 : 0`, 1, [0, 2], true));
  else if (fail.length) out.push(t("alive", `(${anyOf(fail)}) ? 0 : 1`, 1, [0, 2], true));
  if (fail.length) out.push(t("fail", `(${anyOf(fail)}) ? -1 : 0`, 5, [0, 50], false));
  if (goals.length) out.push(t("goal", `(${anyOf(goals)}) ? 1 : 0`, 10, [1, 100], true));
  if (distance) out.push(t("near", `-info.${distance}`, 0.5, [0, 2], true));

  // Posture: the body's main angle (or its sin/cos pair) near zero; not while the goal is to rotate.
  const angle = obs.find((n) => MAIN_ANGLE.test(n));
  const sinCos = obs.includes("sin_theta") && obs.includes("cos_theta");
  if (sinCos) out.push(t("upright", "-(Math.atan2(nextObs.sin_theta, nextObs.cos_theta) ** 2)", 0.5, [0, 5], rotation === undefined));
  else if (angle) out.push(t("upright", `-(nextObs.${angle} ** 2)`, 0.5, [0, 5], rotation === undefined));

  // Height: of the body (obs) or a tip (info); a first term where the goal is to reach something and nothing measures distance.
  const heightObs = obs.find((n) => HEIGHT.test(n));
  const heightInfo = info.find((n) => HEIGHT.test(n));
  const heightBase = goals.length > 0 && !distance;
  if (sinCos) out.push(t("height", "nextObs.cos_theta", 0.5, [0, 2], false));
  else if (heightObs) out.push(t("height", `nextObs.${heightObs}`, 0.5, [0, 5], heightBase));
  else if (heightInfo) out.push(t("height", `info.${heightInfo}`, 0.5, [0, 5], heightBase));

  const centre = obs.find((n) => CENTRE.test(n));
  if (centre && !velocity) out.push(t("centre", `-(nextObs.${centre} ** 2)`, 0.1, [0, 2], false));
  const spins = obs.filter((n) => SPIN.test(n));
  if (spins.length) out.push(t("calm", sumSquares("nextObs", spins), 0.01, [0, 0.2], false));
  if (!isDiscrete(l) && l.actionNames.length) out.push(t("effort", sumSquares("action", l.actionNames), 0.01, [0, 0.5], true));
  const contact = info.find((n) => CONTACT_COST.test(n));
  if (contact) out.push(t("contact", `-info.${contact}`, 1e-4, [0, 1e-2], false));
  return out;
};
