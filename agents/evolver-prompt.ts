import type { Bank, BankEntry } from "../src/store/bank.ts";
import type { BankCaps, EvolverMode, Labelled } from "./evolver-labels.ts";
import type { FamilyWords } from "../src/family/family-words.ts";
import { rewardTable } from "./reward.ts";
import { renderTrajectory } from "./evolver-trajectory.ts";
import { LOW_WEIGHT } from "./evolver-schema.ts";

/** What every evolver prompt is about: the level, its factual description, the caps and how trajectories are labelled. */
export interface EvolverContext {
  words: FamilyWords;
  level: string;
  /** The level's factual description (the one the synthesiser reads, method.md §6); omitted when not given. */
  description?: string;
  caps: BankCaps;
  mode: EvolverMode;
  /** The turn budget T the trajectories were played with: the reward table's edges scale with it (docs/spec/method.md §2). */
  maxTurns: number;
}

const renderEntry = (e: BankEntry): string => {
  const meta = `weight ${e.weight.toFixed(2)} · seeds [${e.sourceSeeds.join(", ")}] · generation ${e.generation}`;
  return e.kind === "skill"
    ? `- [${e.id}] skill (${e.sourceType}; ${meta})\n  title: ${e.title}\n  principle: ${e.principle}\n  when_to_apply: ${e.whenToApply}${e.example ? `\n  example: ${e.example}` : ""}`
    : `- [${e.id}] mistake (${meta})\n  description: ${e.description}\n  root_cause: ${e.rootCause}\n  correction: ${e.correction}`;
};

/** The full text of every entry with its id (docs/spec/method.md §4, ours: nothing truncated). */
const renderBank = (bank: Bank): string => [...bank.skills, ...bank.mistakes].map(renderEntry).join("\n") || "(the bank is empty)";

/**
 * How an entry's weight follows from its `sources` (docs/spec/method.md §3, agents/evolver-labels.ts `weigh`): the
 * reference never told the evolver, so a failure cited as an illustration silently lowered a skill.
 */
const WEIGHTS = [
  "## How an entry's weight follows from what it cites",
  "- A skill's weight is (mean r of the trajectories in its `sources` + 1) / 2, kept within 0.1–1.0; a partial skill (from failed runs) is capped at 0.5. The actor is shown the highest-weighted skills first.",
  "- So citing a failed trajectory (negative r) lowers a skill's weight: cite as a skill's sources the runs that show it working; a failure that shows a skill's absence belongs to a mistake.",
  "- A skill that cites nothing gets the mean r of this batch's trajectories.",
  "- A mistake's weight grows with the number of failed trajectories it cites (1 → 0.33, 2 → 0.5, 4 → 0.67); their r does not matter.",
].join("\n");

/** How a trajectory is laid out (agents/evolver-trajectory.ts): each turn in the order it happened. */
const READING =
  "Each trajectory shows its header, scene, outcome and committed action, then its turns in order, each as it happened: the thought the model wrote before the call, the call (action), then what the call returned (← lines).";

/** "3 successes and 2 failures", as the pass's heading says what it holds. */
const counted = (ls: readonly Labelled[]) => {
  const ok = ls.filter((l) => l.trajectory.success).length;
  return `${ok} success${ok === 1 ? "" : "es"} and ${ls.length - ok} failure${ls.length - ok === 1 ? "" : "s"}`;
};

/** The rules, the level's description and, when trajectories are labelled, the table their r comes from. */
const system = (c: EvolverContext) =>
  [
    `You maintain the skill bank of an agent that solves the ${c.words.task} level "${c.level}" by ${c.words.solvesBy}.`,
    ...(c.description ? ["", `## The level: ${c.level}`, c.description] : []),
    ...(c.mode === "labelled"
      ? [
          "",
          `## How trajectories are labelled (turn budget T = ${c.maxTurns}; r counts the turns an episode used, a failure's too)`,
          rewardTable(c.maxTurns),
          "",
          WEIGHTS,
        ]
      : ["", "Entries are not weighted in this run: the actor is shown them in the order the bank keeps."]),
    "",
    READING,
    "",
    "Rules:",
    "- Ground every entry in the trajectories shown; cite their ids in `sources`.",
    `- State ${c.words.mechanisms}; no platitudes such as 'be careful' or 'experiment more'.`,
    `- Concrete numbers (${c.words.numbers}) are allowed only in \`example\`, and only because they come from this same level, ${c.level}; ${c.words.seedsDiffer}, so say what the numbers depend on.`,
    "- Principles are 2–3 sentences. No two entries may say the same thing.",
    `- The bank holds at most ${c.caps.skills} skills and ${c.caps.mistakes} mistakes; extra entries are cut by weight.`,
    "- Answer with one JSON object only, no prose around it.",
  ].join("\n");

const skillShape = '{"title": "...", "principle": "...", "when_to_apply": "...", "example": "... (optional)", "sources": ["<trajectory id>", ...]}';
const mistakeShape = '{"description": "what goes wrong", "root_cause": "the broken causal belief", "correction": "what to do instead", "sources": [...]}';

/** The contrastive pass; only asked when the batch has a success (with none there is nothing to contrast). */
export const contrastivePrompt = (c: EvolverContext, successes: Labelled[], failures: Labelled[]) => ({
  system: system(c),
  user: [
    `The runs below: ${counted([...successes, ...failures])}.`,
    c.mode === "labelled"
      ? "Compare the best successful runs with the worst failed runs (sorted by reward r). Write 4–6 skills that explain what made the fast solves fast; write fewer when the runs show fewer distinct causes."
      : "Compare the successful runs with the failed runs. Write 4–6 skills that explain what made the successes work; write fewer when the runs show fewer distinct causes.",
    "## successes",
    ...successes.map((l) => renderTrajectory(c.level, l, c.mode, c.words)),
    "## failures",
    ...(failures.length ? failures.map((l) => renderTrajectory(c.level, l, c.mode, c.words)) : ["(none)"]),
    `Answer: {"skills": [${skillShape}, ...]}`,
  ].join("\n\n"),
});

/**
 * The failures pass. The reference asked for "3–5 mistakes and 1–2 partial skills" whatever the batch held, so one
 * failure yielded invented mistakes; the paper's wording is "if real ones exist": here the counts are upper bounds
 * and an empty list is a valid answer.
 */
export const failuresPrompt = (c: EvolverContext, failures: Labelled[]) => ({
  system: system(c),
  user: [
    `The runs below: ${counted(failures)}.`,
    `Study these failed runs (lowest r first). Write the mistakes they show, grouped by root cause (up to ${Math.min(5, c.caps.mistakes)}; one per root cause the runs actually show), and up to 2 partial skills: correct steps inside the failures (${c.words.partialExamples}), only where a run shows one. Each entry must point to what happened in the runs it cites; where the runs show no mistake or no partial skill, answer with an empty list.`,
    "## failures",
    ...failures.map((l) => renderTrajectory(c.level, l, c.mode, c.words)),
    `Answer: {"mistakes": [${mistakeShape}, ...], "partial_skills": [${skillShape}, ...]}`,
  ].join("\n\n"),
});

export const evolvePrompt = (c: EvolverContext, bank: Bank, shown: Labelled[]) => ({
  system: system(c),
  user: [
    "Update the bank with the evidence of the last round. Return the complete new bank as a list of operations; every existing id must appear exactly once (in keep, revise, prune, or one merge's from).",
    "## current bank",
    renderBank(bank),
    `## last round's trajectories${c.mode === "labelled" ? " (best r first)" : ""}: ${counted(shown)}`,
    ...(shown.length ? shown.map((l) => renderTrajectory(c.level, l, c.mode, c.words)) : ["(none)"]),
    [
      'Operations (`entry` is a skill {"kind": "skill", title, principle, when_to_apply, example?} or a mistake {"kind": "mistake", description, root_cause, correction}):',
      '- {"op": "keep", "id": "<id>", "sources": [<ids of trajectories that confirm it, if any>]} with sources, its weight is recomputed from all its evidence so far; without, it keeps its weight',
      '- {"op": "revise", "id": "<id>", "entry": {...}, "sources": [...], "reason": "..."} re-ground with new evidence',
      '- {"op": "merge", "from": ["<id>", "<id>", ...], "entry": {...}, "sources": [...], "reason": "..."} dedupe or subsume (same kind)',
      '- {"op": "add", "entry": {...}, "sources": [...], "reason": "..."}',
      `- {"op": "prune", "id": "<id>", "why": "redundant" | "contradicted" | "too_narrow" | "low_weight", "reason": "..."} too_narrow: it holds only for the seeds it was learned on; low_weight only when its weight is below ${LOW_WEIGHT} and no trajectory shown re-observes it`,
    ].join("\n"),
    'Answer: {"ops": [...]}',
  ].join("\n\n"),
});
