import type { Bank, BankEntry } from "../src/store/bank.ts";
import type { BankCaps, EvolverMode, Labelled } from "./evolver-labels.ts";
import type { FamilyWords } from "../src/family/family-words.ts";

/** Observations are cut to 500 characters and only the last 10 steps shown: the evolver's context budget (docs/spec/method.md §4). */
const OBSERVATION_CHARS = 500;
const THOUGHT_CHARS = 300;
const LAST_STEPS = 10;

const cut = (s: string, n: number) => (s.length > n ? `${s.slice(0, n)}…` : s);
const signed = (r: number) => (r >= 0 ? `+${r.toFixed(2)}` : r.toFixed(2));

/** Header (seed, success, turns, category, r), the last 10 steps, the final action; r and category hidden in the ablation. */
export const renderTrajectory = (l: Labelled, mode: EvolverMode, words: FamilyWords): string => {
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
export const renderBank = (bank: Bank): string =>
  [...bank.skills, ...bank.mistakes].map(renderEntry).join("\n") || "(the bank is empty)";

const RULES = (level: string, caps: BankCaps, words: FamilyWords) =>
  [
    `You maintain the skill bank of an agent that solves the ${words.task} level "${level}" by ${words.solvesBy}.`,
    "Rules:",
    "- Ground every entry in the trajectories shown; cite their ids in `sources`.",
    "- State concrete physical mechanisms (what hits what, which way it moves, why it reaches the goal); no platitudes such as 'be careful' or 'experiment more'.",
    `- Concrete numbers (${words.numbers}) are allowed only in \`example\`, and only because they come from this same level, ${level}.`,
    "- Principles are 2–3 sentences. No two entries may say the same thing.",
    `- The bank holds at most ${caps.skills} skills and ${caps.mistakes} mistakes; extra entries are cut by weight.`,
    "- Answer with one JSON object only, no prose around it.",
  ].join("\n");

const skillShape = '{"title": "...", "principle": "...", "when_to_apply": "...", "example": "... (optional)", "sources": ["<trajectory id>", ...]}';
const mistakeShape = '{"description": "what goes wrong", "root_cause": "the broken causal belief", "correction": "what to do instead", "sources": [...]}';

export const contrastivePrompt = (words: FamilyWords, level: string, caps: BankCaps, successes: Labelled[], failures: Labelled[], mode: EvolverMode) => ({
  system: RULES(level, caps, words),
  user: [
    mode === "labelled"
      ? "Compare the best successful runs with the worst failed runs (sorted by reward r). Write 4–6 skills that explain what made the fast solves fast."
      : "Compare the successful runs with the failed runs. Write 4–6 skills that explain what made the successes work.",
    "## successes",
    ...(successes.length ? successes.map((l) => renderTrajectory(l, mode, words)) : ["(none)"]),
    "## failures",
    ...(failures.length ? failures.map((l) => renderTrajectory(l, mode, words)) : ["(none)"]),
    `Answer: {"skills": [${skillShape}, ...]}`,
  ].join("\n\n"),
});

export const failuresPrompt = (words: FamilyWords, level: string, caps: BankCaps, failures: Labelled[], mode: EvolverMode) => ({
  system: RULES(level, caps, words),
  user: [
    "Study these failed runs. Write 3–5 mistakes grouped by root cause, and 1–2 partial skills: correct steps inside the failures (a good region abandoned too early, the right mechanism with wrong parameters).",
    "## failures",
    ...failures.map((l) => renderTrajectory(l, mode, words)),
    `Answer: {"mistakes": [${mistakeShape}, ...], "partial_skills": [${skillShape}, ...]}`,
  ].join("\n\n"),
});

export const evolvePrompt = (words: FamilyWords, level: string, caps: BankCaps, bank: Bank, shown: Labelled[], mode: EvolverMode) => ({
  system: RULES(level, caps, words),
  user: [
    "Update the bank with the evidence of the last round. Return the complete new bank as a list of operations; every existing id must appear exactly once (in keep, revise, prune, or one merge's from).",
    "## current bank",
    renderBank(bank),
    `## last round's trajectories${mode === "labelled" ? " (best r first)" : ""}`,
    ...(shown.length ? shown.map((l) => renderTrajectory(l, mode, words)) : ["(none)"]),
    [
      "Operations (`entry` is a skill {\"kind\": \"skill\", title, principle, when_to_apply, example?} or a mistake {\"kind\": \"mistake\", description, root_cause, correction}):",
      '- {"op": "keep", "id": "<id>", "sources": [<ids of trajectories that confirm it, if any>]}',
      '- {"op": "revise", "id": "<id>", "entry": {...}, "sources": [...], "reason": "..."} re-ground with new evidence',
      '- {"op": "merge", "from": ["<id>", "<id>", ...], "entry": {...}, "sources": [...], "reason": "..."} dedupe or subsume (same kind)',
      '- {"op": "add", "entry": {...}, "sources": [...], "reason": "..."}',
      '- {"op": "prune", "id": "<id>", "why": "redundant" | "contradicted" | "low_weight", "reason": "..."} low_weight only when weight < 0.3 and not re-observed',
    ].join("\n"),
    'Answer: {"ops": [...]}',
  ].join("\n\n"),
});
