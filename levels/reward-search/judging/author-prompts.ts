/**
 * The judge author's prompts (docs/guides/judging.md, "Authoring a code judge"): a system prompt with the env's
 * body and joint tables, the trajectory contract of the sandbox and the scoring rules hexa applies, then one
 * request per step. The protocol is Prompt-to-Policy's (decompose, self-review, implement, loophole review); the
 * words are hexa's, and the model measures leaves only: weights, gates and must-keep are computed by hexa.
 */
import type { BodyRow, JointRow, TrajectoryHeader } from "../trajectory/record.ts";

/** What the prompts say about the environment: the recorded header and the episode's length. */
export interface AuthoringEnv {
  header: TrajectoryHeader;
  /** Env steps in a full episode (the task's time limit). */
  episodeSteps: number;
  /** The task's own description, when it has one. */
  description?: string;
}

const f = (x: number) => Number(x.toPrecision(4)).toString();

const bodyLine = (b: BodyRow, bodies: readonly BodyRow[]) =>
  `  ${b.index}: ${b.name || "(unnamed)"}${b.index === 0 ? " (the world)" : `, parent ${bodies[b.parent]?.name ?? b.parent}`}`;

const jointLine = (j: JointRow, bodies: readonly BodyRow[]) => {
  const range = j.range ? `range [${f(j.range[0])}, ${f(j.range[1])}] ${j.type === "slide" ? "m" : "rad"}` : "unlimited";
  const sense =
    j.type === "hinge"
      ? `+q rotates right-handed about axis [${j.axis.map(f).join(", ")}] of ${bodies[j.body]?.name}`
      : j.type === "slide"
        ? `+q moves along axis [${j.axis.map(f).join(", ")}] of ${bodies[j.body]?.name}`
        : `${j.type} joint of ${bodies[j.body]?.name}`;
  return `  ${j.index}: ${j.name || "(unnamed)"} (${j.type}) qpos[${j.qposAdr}], qvel[${j.dofAdr}]; ${sense}; ${range}`;
};

/** The body and joint tables, the sizes and conventions a judge must know to read the trajectory. */
const envText = (e: AuthoringEnv): string => {
  const h = e.header;
  return [
    `Task: ${h.task} (model ${h.model}); dt = ${f(h.dt)} s per env step; a full episode is ${e.episodeSteps} steps (${f(e.episodeSteps * h.dt)} s)`,
    ...(e.description ? [`Description: ${e.description}`] : []),
    `Forward is the world direction [${h.forward.join(", ")}]; z is up. nq = ${h.nq}, nv = ${h.nv}, nbody = ${h.nbody}, obs ${h.obsDim} values, action ${h.actionDim} values.`,
    `Reward terms recorded per step (traj.term(name)): ${h.terms.join(", ")} (fitness is the step's increment of the task's fitness)`,
    "Bodies (index: name, parent):",
    ...h.bodies.map((b) => bodyLine(b, h.bodies)),
    "Joints (index: name (type) where its values are; sign convention; limits):",
    ...h.joints.map((j) => jointLine(j, h.bodies)),
    "A slide joint's qpos is its displacement from the body's place in the model file, not a world coordinate (xpos is world).",
    "Right-handed about +y turns +z toward +x; about +z turns +x toward +y; about +x turns +y toward +z.",
  ].join("\n");
};

const CONTRACT = `The judge is JavaScript run in a sandbox (QuickJS: no require, import, process, fetch or timers; Math.random is
seeded, Date.now() reads 0; a CPU-time and a memory limit). Define one top-level function:

function judge(traj) {
  // traj.steps: steps recorded (may be fewer than a full episode, even 0); traj.dt: seconds per step
  // traj.header: { task, bodies: [{ index, name, parent }], joints: [{ index, name, type, body, qposAdr, dofAdr, axis, range }], forward, terms }
  // traj.initial.{obs, qpos, qvel, xpos, xquat}: the state after reset, one row each
  // per-step columns, Float64Array, row t at [t * traj.width.<name>, (t + 1) * traj.width.<name>):
  //   obs, action, terms, qpos, qvel, xpos (nbody x 3, world), xquat (nbody x 4, w x y z), cvel (nbody x 6, angular then linear),
  //   cfrcExt (nbody x 6, torque then force: contact forces on the body), terminated, truncated (1 or 0)
  // traj.row("xpos", t): row t as a view; traj.term("x_velocity"): one reward term over the episode
  return [{ id: "1.1", value: 0.82, score: 1, passed: true, note: "mean forward velocity 0.82 m/s" }];
}

Return exactly one result per leaf of the decomposition, with the leaf's id: value (the measured number), score in
[0, 1] (1 = the threshold is met; partial credit below it, as the leaf's "partial" says), passed (true exactly when
the full threshold is met, so passed is true if and only if score is 1), note (what was measured, one short line).
Find bodies and joints by name from traj.header, never by a guessed index. Handle 0 steps (score 0).`;

const SCORING = `hexa, not your code, combines the leaves (do not compute a total):
- a tree of groups and leaves; a group's children are "sequential" (phases in order: 1 -> 2) or "independent" ((1, 2));
  ids follow the nesting (1, 2 at the top; 1.1, 1.2 under 1); at most 4 levels, 16 children per group, 64 leaves;
- weights are relative among siblings (omitted: equal shares); a group scores the weighted mean of its children;
- in a sequential group a child counts only if the child before it scored above 0.5; otherwise it is skipped;
- a leaf with mustKeep true that does not pass makes the whole behaviour score 0: use it for what the intent cannot do
  without (e.g. not falling over when the intent is to walk), never for a nice-to-have.`;

const RULES = `Rules for a faithful judge:
- every requirement of the intent has a leaf; phases that must happen in order are sequential, and must happen within
  one attempt of the episode;
- no leaf that rewards surviving a number of steps unless the intent asks for a duration (physical criteria such as
  torso height or upright posture are fine);
- a direction of rotation or travel the intent names is checked by its sign, never with Math.abs;
- thresholds are what the intent literally asks; never loosen a metric to make it easier to pass;
- ask of each leaf: could a wrong behaviour pass it? could a right one fail it?`;

/**
 * The system prompt: the role, the intent with the user's corrections of the search so far (the text of
 * correctionsForJudges, src/search/p2p-corrections.ts; none: the prompt is as without), the environment, the
 * contract, the scoring rules and the rules.
 */
export const systemPrompt = (intent: string, env: AuthoringEnv, corrections?: string): string =>
  [
    "You write code judges: programs that decide from a recorded episode of a MuJoCo robot whether it did what an intent in words asks.",
    `Intent: ${JSON.stringify(intent)}`,
    ...(corrections ? [`${corrections}\nEvery correction is part of the intent: give it leaves, or change the metrics and thresholds it refines.`] : []),
    `## Environment\n${envText(env)}`,
    `## The judge's code\n${CONTRACT}`,
    `## Scoring\n${SCORING}`,
    `## ${RULES}`,
    "Answer every request with one JSON object in the form it asks for, nothing else.",
  ].join("\n\n");

const TREE_FORM = `{ "criteria": { "order": "sequential" | "independent", "children": [ nodes ], "definitions": "short names used in metrics = where each is read" } }
A node is a group { "id", "name", "order", "children", "weight"? } or a leaf
{ "id", "name", "metric" (what is measured, from which trajectory data), "threshold" (the value that passes),
  "partial" (how the score grows below the threshold), "weight"?, "mustKeep"? }.`;

export const decomposeRequest = (intent: string): string =>
  `Decompose the intent ${JSON.stringify(intent)} into groups and leaves, each leaf a concrete measurement on the trajectory. Answer:\n${TREE_FORM}`;

export const decompositionReviewRequest = (intent: string, remaining: number): string =>
  `Review the decomposition you gave for ${JSON.stringify(intent)} (${remaining} review round(s) left). Check:
1. completeness: every requirement of the intent has a leaf;
2. structure: phases in order are sequential, side-by-side criteria independent;
3. could a wrong behaviour pass a leaf, or a right one fail it? (fix the metric or threshold);
4. no leaf that counts surviving steps unless the intent asks for a duration;
5. must-keep: only what the intent cannot do without is mustKeep.
Keep metrics, thresholds and definitions precise. Answer { "change": false, "findings": "…" } when nothing needs to
change, or { "change": true, "findings": "what was wrong", "criteria": the whole corrected tree as before }.`;

export const implementRequest = (): string =>
  `Implement the decomposition you settled on: the JavaScript of function judge(traj) as described, one result per leaf
with exactly its id. It is run on a recorded 5-step episode of random actions before it is accepted. Answer { "code": "…" }.`;

export const fixRequest = (error: string): string =>
  `Your code failed on a recorded 5-step episode of random actions: ${error}\nFix it and answer { "code": "…" } with the whole corrected code.`;

export const loopholeReviewRequest = (intent: string, remaining: number): string =>
  `Review the latest judge code adversarially for ${JSON.stringify(intent)} (${remaining} review round(s) left). For each leaf,
compare what the decomposition defines with what the code computes: the data it reads (right body or joint, right
column and offset), the window of steps, the sign of a direction, the threshold and its comparison, the partial credit,
passed exactly at the threshold, values that can become NaN. Look for a loophole: a wrong behaviour that would score
high, or a right one that would score low. If you find any, you must fix it: answer { "loophole": true, "findings":
"…", "code": "the whole corrected code" }. Only when you find none, answer { "loophole": false, "findings": "…" }.`;

export const revalidateRequest = (error: string): string =>
  `Your corrected code failed on the recorded 5-step episode: ${error}\nAnswer again { "loophole": true, "findings": "…", "code": "…" } with code that runs.`;
