import type { FamilyWords } from "../src/family/family-words.ts";
import type { StopReason, TrajectoryStep } from "../src/store/trajectory.ts";
import type { EvolverMode, Labelled } from "./evolver-labels.ts";

/**
 * A trajectory as the evolver reads it (docs/spec/method.md §4, ours): header, the scene in one line, the outcome
 * with r and the committed answer, then every step as it happened — its thought (the model's answer before its
 * reasoning), its action, then the outcome lines of its observation (the family's `evidenceOf` picks them: goal
 * objects first).
 * The reference showed the last 10 steps with each observation cut to 500 characters, which lost a long episode's
 * scene reading and, with objects listed alphabetically, the goal objects' final states.
 */

/** Characters of a step's answer text and of its reasoning (head and tail) shown. */
const ANSWER_CHARS = 400;
const REASONING_HEAD = 200;
const REASONING_TAIL = 100;
/**
 * A trajectory over FULL_CHARS shows its first KEEP_FIRST steps (the scene reading) and last KEEP_LAST steps in
 * full and the ones between compactly: a shorter thought, the action and the first COMPACT_LINES outcome lines (the
 * family puts the outcome and the goal objects first). Ten 25-turn trajectories stay near 30k tokens.
 */
const FULL_CHARS = 12_000;
const KEEP_FIRST = 3;
const KEEP_LAST = 5;
const COMPACT_LINES = 3;
const COMPACT_ACTION_CHARS = 300;
const COMPACT_ANSWER_CHARS = 150;
/** The marker agents/actor.ts puts before a reasoning model's reasoning in a step's thought. */
const REASONING = "[reasoning] ";

const cut = (s: string, n: number) => (s.length > n ? `${s.slice(0, n)}…` : s);
const cutMiddle = (s: string, head: number, tail: number) =>
  s.length <= head + tail + 20 ? s : `${s.slice(0, head)} … [${s.length - head - tail} characters cut] … ${s.slice(-tail)}`;
const oneLine = (s: string) => s.replace(/\s*\n\s*/g, " ").trim();
const signed = (r: number) => (r >= 0 ? `+${r.toFixed(2)}` : r.toFixed(2));

/** A thought split into the model's answer text and its reasoning (the part after the marker, when there is one). */
const splitThought = (thought: string): { answer: string; reasoning: string } => {
  const i = thought.indexOf(REASONING);
  return i < 0 ? { answer: thought.trim(), reasoning: "" } : { answer: thought.slice(0, i).trim(), reasoning: thought.slice(i + REASONING.length).trim() };
};

const ENDED: Record<StopReason, string> = {
  success: "a tool reported success (auto-finish)",
  finish: "finish committed an answer",
  budget: "the turns ran out",
  error: "the model endpoint failed",
  context: "the request outgrew the model's context",
};

const indent = (text: string, prefix: string) =>
  text
    .split("\n")
    .map((l) => `${prefix}${l}`)
    .join("\n");

/**
 * One step in the order it happened: the thought (written before the call), the call, then what it returned. The
 * thought therefore reads as the model's reason for the call below it, never as a reaction to that call's outcome.
 */
const renderStep = (level: string, s: TrajectoryStep, words: FamilyWords, compact: boolean): string => {
  const e = words.evidenceOf(level, s);
  const { answer, reasoning } = splitThought(s.thought);
  const thought = [
    `  thought: ${answer ? cut(oneLine(answer), compact ? COMPACT_ANSWER_CHARS : ANSWER_CHARS) : "(none)"}`,
    ...(reasoning && !compact ? [`  reasoning: ${cutMiddle(oneLine(reasoning), REASONING_HEAD, REASONING_TAIL)}`] : []),
  ];
  const action = compact ? cutMiddle(e.action, COMPACT_ACTION_CHARS - 100, 100) : e.action;
  const [first = "", ...more] = action.split("\n");
  return [
    `turn ${s.turn}`,
    ...thought,
    `  action: ${first}${s.ok ? "" : " (failed)"}`,
    ...(more.length ? [indent(more.join("\n"), "      ")] : []),
    ...(compact ? e.outcome.slice(0, COMPACT_LINES) : e.outcome).map((l) => `  ← ${l}`),
  ].join("\n");
};

/**
 * Every step in full, or, past FULL_CHARS, the middle ones compactly with a line saying which. Also what Reflexion's
 * reflection reads of a failed trial (agents/baselines/reflexion.ts), so both learn from the same evidence.
 */
export const renderSteps = (level: string, steps: readonly TrajectoryStep[], words: FamilyWords): string[] => {
  const full = steps.map((s) => renderStep(level, s, words, false));
  if (full.join("\n").length <= FULL_CHARS || steps.length <= KEEP_FIRST + KEEP_LAST) return full;
  const middle = steps.slice(KEEP_FIRST, steps.length - KEEP_LAST);
  return [
    ...full.slice(0, KEEP_FIRST),
    `(turns ${middle[0]!.turn}–${middle.at(-1)!.turn} shown compactly: a shorter thought, the action, the first ${COMPACT_LINES} outcome lines)`,
    ...middle.map((s) => renderStep(level, s, words, true)),
    ...full.slice(-KEEP_LAST),
  ];
};

/** A trajectory of `level` (the bank's level, which the loop checked); r and category hidden in the ablation (docs/spec/method.md §7). */
export const renderTrajectory = (level: string, l: Labelled, mode: EvolverMode, words: FamilyWords): string => {
  const t = l.trajectory;
  const label = mode === "labelled" ? ` · category ${l.category} · r ${signed(l.r)}` : "";
  const head = `### trajectory ${l.id} · seed ${t.seed} · success ${t.success ? "yes" : "no"} · turns ${t.steps.length}/${t.maxTurns}${label}`;
  const score = t.score === undefined ? "" : ` · score ${Number(t.score.toPrecision(4))}`;
  const outcome = `outcome: ${t.success ? "success" : "failure"} after ${t.steps.length} of ${t.maxTurns} turns; ${ENDED[t.stopReason]}${score}${label}`;
  const answer = t.action === null || t.action === undefined ? "final action: none" : `final action: ${words.renderAction(t.action)}`;
  return [head, `scene: ${words.sceneOf(level, t.seed)}`, outcome, answer, ...renderSteps(level, t.steps, words)].join("\n");
};
