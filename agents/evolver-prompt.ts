import type { Bank, BankEntry } from "../src/store/bank.ts";
import type { BankCaps, EvolverMode, Labelled } from "./evolver-labels.ts";
import type { FamilyWords } from "../src/family/family-words.ts";
import { rewardTable } from "./reward.ts";

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

/** Observations are cut to 500 characters and only the last 10 steps shown: the evolver's context budget (docs/spec/method.md §4). */
const OBSERVATION_CHARS = 500;
const THOUGHT_CHARS = 300;
const LAST_STEPS = 10;

const cut = (s: string, n: number) => (s.length > n ? `${s.slice(0, n)}…` : s);
const signed = (r: number) => (r >= 0 ? `+${r.toFixed(2)}` : r.toFixed(2));

/** Header (seed, success, turns, category, r), the last 10 steps, the final action; r and category hidden in the ablation. */
const renderTrajectory = (l: Labelled, mode: EvolverMode, words: FamilyWords): string => {
  const t = l.trajectory;
  const label = mode === "labelled" ? ` · category ${l.category} · r ${signed(l.r)}` : "";
  const head = `### trajectory ${l.id} · seed ${t.seed} · success ${t.success ? "yes" : "no"} · turns ${t.steps.length}/${t.maxTurns}${label}`;
  const shown = t.steps.slice(-LAST_STEPS);
  const skipped = t.steps.length - shown.length;
  const steps = shown.map(
    (s) =>
      `turn ${s.turn}: ${cut(s.thought.trim() || "(no thought)", THOUGHT_CHARS)}\n  → ${s.tool}(${JSON.stringify(s.args ?? {})})\n  ← ${cut(s.observation, OBSERVATION_CHARS)}`,
  );
  const final = t.action === null || t.action === undefined ? "final action: none" : `final action: ${words.renderAction(t.action)}`;
  return [head, ...(skipped > 0 ? [`(${skipped} earlier steps omitted)`] : []), ...steps, final].join("\n");
};

const renderEntry = (e: BankEntry): string => {
  const meta = `weight ${e.weight.toFixed(2)} · seeds [${e.sourceSeeds.join(", ")}] · generation ${e.generation}`;
  return e.kind === "skill"
    ? `- [${e.id}] skill (${e.sourceType}; ${meta})\n  title: ${e.title}\n  principle: ${e.principle}\n  when_to_apply: ${e.whenToApply}${e.example ? `\n  example: ${e.example}` : ""}`
    : `- [${e.id}] mistake (${meta})\n  description: ${e.description}\n  root_cause: ${e.rootCause}\n  correction: ${e.correction}`;
};

/** The full text of every entry with its id (docs/spec/method.md §4, ours: nothing truncated). */
const renderBank = (bank: Bank): string => [...bank.skills, ...bank.mistakes].map(renderEntry).join("\n") || "(the bank is empty)";

/** The rules, the level's description and, when trajectories are labelled, the table their r comes from. */
const system = (c: EvolverContext) =>
  [
    `You maintain the skill bank of an agent that solves the ${c.words.task} level "${c.level}" by ${c.words.solvesBy}.`,
    ...(c.description ? ["", `## The level: ${c.level}`, c.description] : []),
    ...(c.mode === "labelled"
      ? ["", `## How trajectories are labelled (turn budget T = ${c.maxTurns}; an unsolved episode used every turn)`, rewardTable(c.maxTurns)]
      : []),
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
    c.mode === "labelled"
      ? "Compare the best successful runs with the worst failed runs (sorted by reward r). Write 4–6 skills that explain what made the fast solves fast."
      : "Compare the successful runs with the failed runs. Write 4–6 skills that explain what made the successes work.",
    "## successes",
    ...successes.map((l) => renderTrajectory(l, c.mode, c.words)),
    "## failures",
    ...(failures.length ? failures.map((l) => renderTrajectory(l, c.mode, c.words)) : ["(none)"]),
    `Answer: {"skills": [${skillShape}, ...]}`,
  ].join("\n\n"),
});

export const failuresPrompt = (c: EvolverContext, failures: Labelled[]) => ({
  system: system(c),
  user: [
    `Study these failed runs. Write 3–5 mistakes grouped by root cause, and 1–2 partial skills: correct steps inside the failures (${c.words.partialExamples}).`,
    "## failures",
    ...failures.map((l) => renderTrajectory(l, c.mode, c.words)),
    `Answer: {"mistakes": [${mistakeShape}, ...], "partial_skills": [${skillShape}, ...]}`,
  ].join("\n\n"),
});

export const evolvePrompt = (c: EvolverContext, bank: Bank, shown: Labelled[]) => ({
  system: system(c),
  user: [
    "Update the bank with the evidence of the last round. Return the complete new bank as a list of operations; every existing id must appear exactly once (in keep, revise, prune, or one merge's from).",
    "## current bank",
    renderBank(bank),
    `## last round's trajectories${c.mode === "labelled" ? " (best r first)" : ""}`,
    ...(shown.length ? shown.map((l) => renderTrajectory(l, c.mode, c.words)) : ["(none)"]),
    [
      'Operations (`entry` is a skill {"kind": "skill", title, principle, when_to_apply, example?} or a mistake {"kind": "mistake", description, root_cause, correction}):',
      '- {"op": "keep", "id": "<id>", "sources": [<ids of trajectories that confirm it, if any>]}',
      '- {"op": "revise", "id": "<id>", "entry": {...}, "sources": [...], "reason": "..."} re-ground with new evidence',
      '- {"op": "merge", "from": ["<id>", "<id>", ...], "entry": {...}, "sources": [...], "reason": "..."} dedupe or subsume (same kind)',
      '- {"op": "add", "entry": {...}, "sources": [...], "reason": "..."}',
      '- {"op": "prune", "id": "<id>", "why": "redundant" | "contradicted" | "low_weight", "reason": "..."} low_weight only when weight < 0.3 and not re-observed',
    ].join("\n"),
    'Answer: {"ops": [...]}',
  ].join("\n\n"),
});
