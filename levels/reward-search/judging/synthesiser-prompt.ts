/**
 * What the synthesiser's model is told (docs/guides/judging.md, "Synthesiser"): its task, its tools and their
 * budget, the rotation rule, the verdict's form; then the case — the intent, the episode's tables, both judges'
 * scores and readings, and why they disagree. Text from the judges is cut to fixed lengths.
 */
import { terminalLine } from "../../../src/util/terminal-text.ts";
import type { TrajectoryRecord } from "../trajectory/record.ts";
import { episodeSeconds } from "./synthesiser-tools.ts";

/** What the prompt states as numbers: the pass threshold, the budget, the check's CPU limit. */
export interface PromptNumbers {
  passThreshold: number;
  toolBudget: number;
  cpuMs: number;
  maxQuestionChars: number;
}

/** The two judges' readings of the episode as the model is shown them. */
export interface JudgeReadings {
  intent: string;
  code: { score: number; breakdown: readonly string[] };
  vision: { score: number; assessment: string };
  /** The agreement rule's statement of the disagreement (agreement.ts). */
  disagreement: string;
}

const MAX_INTENT = 2000;
const MAX_BREAKDOWN_LINES = 80;
const MAX_LINE = 300;
const MAX_ASSESSMENT = 4000;

const cut = (text: string, max: number) => (text.length <= max ? text : `${text.slice(0, max)}… (cut)`);

const TRAJECTORY_CONTRACT = `function judge(traj) {
  // traj.steps, traj.dt, traj.header (bodies, joints, forward, terms), traj.initial.{obs,qpos,qvel,xpos,xquat}
  // traj.obs, action, terms, qpos, qvel, xpos, xquat, cvel, cfrcExt, terminated, truncated: Float64Array,
  //   row t at [t * traj.width.<name>, (t + 1) * traj.width.<name>); row t is the state after step t + 1
  // traj.row("xpos", t) is one row; traj.term("x_velocity") is one reward term over the episode
  return [{ id: "pitch_change", value: 6.1, note: "torso pitch turned +6.1 rad about +y" }];
}`;

export const systemPrompt = (n: PromptNumbers): string =>
  `You settle a disagreement between two judges of one recorded episode of a simulated robot. The code judge ran code that measured the recorded trajectory, criterion by criterion. The vision judge is a vision-language model that watched rendered frames. Decide how well the episode performs the intent.

You may make at most ${n.toolBudget} tool calls in all; a call past that is refused. Use them to test the point the judges disagree on:
- reask_vision(question, from_s, to_s): ask the vision judge one question (at most ${n.maxQuestionChars} characters) about the window from from_s to to_s seconds of the episode, which it then sees at a higher frame rate.
- run_trajectory_check(code): run JavaScript on the recorded trajectory in a sandbox (no host access, ${n.cpuMs} ms of CPU). Define:
${TRAJECTORY_CONTRACT}
Errors and timeouts come back as the call's result.

Rotation direction (which way the body turned, flipped or spun, e.g. a front flip against a back flip) is what the code judge measured from the simulator's state; rendered frames can mislead a viewer about it. Where the judges disagree about rotation direction, the code judge's measurement wins: set "rotation": true, and the code judge's score stands.

When you are done, answer with only a JSON object, no tool call:
{"score": <0 to 1>, "passed": <true exactly when score >= ${n.passThreshold}>, "sided_with": "code" | "vision" | "neither", "rotation": <true when the disagreement is about rotation direction>, "reason": "<at most 1000 characters: what the evidence showed>"}`;

/** The episode's tables: what a check's code indexes. */
const episodeLines = (r: TrajectoryRecord): string[] => {
  const h = r.header;
  const bodies = h.bodies.map((b) => `${b.index} ${b.name}`).join(", ");
  const joints = h.joints.map((j) => `${j.name} (${j.type}, qpos[${j.qposAdr}], qvel[${j.dofAdr}], axis ${j.axis.join(" ")})`).join("; ");
  return [
    `Episode: task ${h.task}, ${r.steps} steps of ${h.dt} s (${Number(episodeSeconds(r).toFixed(4))} s); forward is ${h.forward.join(" ")}, z is up.`,
    `Bodies (xpos row: 3 per body, xquat: 4 per body w x y z): ${bodies}`,
    `Joints: ${joints}`,
    `Reward terms: ${h.terms.join(", ")}`,
  ];
};

const n3 = (x: number) => Number(x.toFixed(3)).toString();

/** The case the model settles. */
export const caseMessage = (c: JudgeReadings, record: TrajectoryRecord): string =>
  [
    `Intent: ${terminalLine(cut(c.intent, MAX_INTENT))}`,
    "",
    ...episodeLines(record),
    "",
    `Code judge: score ${n3(c.code.score)}. Its criteria:`,
    ...c.code.breakdown.slice(0, MAX_BREAKDOWN_LINES).map((l) => `  ${terminalLine(cut(l, MAX_LINE))}`),
    ...(c.code.breakdown.length > MAX_BREAKDOWN_LINES ? [`  … ${c.code.breakdown.length - MAX_BREAKDOWN_LINES} more lines`] : []),
    "",
    `Vision judge: score ${n3(c.vision.score)}. Its assessment:`,
    cut(c.vision.assessment, MAX_ASSESSMENT),
    "",
    `Why they disagree: ${c.disagreement}`,
  ].join("\n");
