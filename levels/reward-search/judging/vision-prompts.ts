/**
 * The words of the vision judge (docs/guides/judging.md, "Vision judge"), after Prompt-to-Policy's two turns
 * (docs/spec, prompt-to-policy.md §3): criteria committed to before the episode is seen, then a verdict on each.
 */

/** What every vision prompt says about the pictures, whatever the task. */
export const SYSTEM = [
  "You judge the behaviour of a simulated robot from rendered pictures of one episode.",
  "The camera follows the robot: when the robot moves, the floor and the background slide the other way. Judge the robot's own motion, not the background's.",
  "Judging rotation from pictures is error-prone: say what you see, and say when a direction cannot be told.",
  "Answer with a JSON object only.",
].join("\n");

const contextLines = (context: string | undefined) => (context ? `\n\nAbout this scene: ${context}` : "");

/** Turn 1: the intent and the first frame, before any motion is seen. */
export const criteriaPrompt = (intent: string, context: string | undefined) =>
  [
    `The behaviour wanted: "${intent}"${contextLines(context)}`,
    "",
    "The picture below is the first frame of an episode: the robot's pose and the scene at the start. You have not seen the episode yet.",
    "List 3 to 5 criteria that a person watching the episode could check directly in the pictures to decide whether the behaviour was performed.",
    "Each criterion is one short sentence about something visible (a pose, a motion, an order of events), not about rewards or internal quantities.",
    "Put the most important criterion first.",
    "",
    'Answer with: {"criteria": ["<criterion>", ...]}',
  ].join("\n");

/** One self-review round of the criteria. */
export const reviewPrompt = (criteria: readonly string[]) =>
  [
    "Review your criteria before the episode is shown:",
    ...criteria.map((c, i) => `${i + 1}. ${c}`),
    "",
    "- Can each be seen in pictures of the episode, without measurement?",
    "- Together, do they cover everything the behaviour asks for, including the order of its parts?",
    "- Do two of them check the same thing?",
    "- Could a wrong behaviour meet them all, or a right one fail one?",
    "",
    'If they need no change, answer {"approved": true}. Otherwise answer {"approved": false, "criteria": ["<criterion>", ...]} with the whole improved list of 3 to 5.',
  ].join("\n");

/** P2P's rubric for the holistic score, in steps of 0.1. */
const RUBRIC = [
  "Score the whole behaviour from 0.0 to 1.0 in steps of 0.1:",
  "0.0 = nothing of the wanted behaviour",
  "0.2 = a faint sign of it: barely related, very incomplete",
  "0.4 = a partial attempt: some of its elements, far from the goal",
  "0.6 = mostly done, with clear flaws",
  "0.8 = done well, with small imperfections",
  "1.0 = exactly the wanted behaviour",
  "Use the odd tenths for behaviour between two of these.",
].join("\n");

const TRAIL_NOTE =
  "Two sequences of the same episode follow. The first shows each moment as it is. In the second each picture also carries faint copies of the poses just before it, so that the direction and speed of motion show.";

/** The user's corrections in the verdict turn: their text (correctionsForJudges, src/search/p2p-corrections.ts) and how to weigh them. */
const correctionLines = (corrections: string | undefined) =>
  corrections
    ? ["", corrections, "Judge the episode by the criteria as these corrections refine them: a behaviour that ignores a correction has a notable flaw."]
    : [];

/**
 * Turn 2, before the pictures: the criteria verbatim, the user's corrections of the search so far (the text of
 * correctionsForJudges; none: the prompt is as without), and what to answer.
 */
export const verdictPrompt = (
  intent: string,
  criteria: readonly string[],
  o: { trail: boolean; video: boolean; context: string | undefined; corrections?: string | undefined },
) =>
  [
    `The behaviour wanted: "${intent}"${contextLines(o.context)}`,
    "",
    "Your criteria, fixed before you saw the episode:",
    ...criteria.map((c, i) => `${i + 1}. ${c}`),
    ...correctionLines(o.corrections),
    "",
    o.video ? "The episode follows as a video." : "The episode follows as pictures in time order, each labelled with its time.",
    ...(o.trail ? [TRAIL_NOTE] : []),
  ].join("\n");

/** Turn 2, after the pictures. */
export const verdictAsk = () =>
  [
    "For each criterion, in the same order, copy its text exactly into `criterion`, describe what the pictures show for it in `assessment`, then set `status` to met, partially_met or not_met.",
    "Then give one score for the whole behaviour. Do not average the criteria: weigh what the behaviour asks for most.",
    "",
    RUBRIC,
    "",
    "Name what went wrong in `failure_tags`: short snake_case tags specific to this behaviour (e.g. rotates_backward_not_forward), none when nothing did.",
    "",
    'Answer with: {"criteria": [{"criterion": "...", "assessment": "...", "status": "met"}], "intent_score": 0.0, "diagnosis": "<two or three sentences>", "failure_tags": ["..."]}',
  ].join("\n");

/** A question about a window of the episode (the synthesiser's re-ask). */
export const questionPrompt = (question: string, fromS: number, toS: number, context: string | undefined) =>
  [`Pictures of the episode from ${fromS} s to ${toS} s follow, in time order.${contextLines(context)}`, "", `Question: ${question}`].join("\n");

export const QUESTION_ASK = 'Answer from what the pictures show, and say when they cannot tell. Answer with: {"answer": "<your answer>"}';
