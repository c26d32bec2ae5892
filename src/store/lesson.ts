import { z } from "zod";

/**
 * Lessons (docs/spec/method.md §3.1): one-sentence rules learned from an iteration, each with a tier that says how
 * binding it is. A lesson's tier changes only through a bank event carrying who changed it and why; the entry
 * keeps the history of those changes, so a retired lesson is shown with the reason it was retired.
 */

/** Most binding first: HARD never violated, STRONG followed unless specific evidence says otherwise, SOFT challenged freely, RETIRED inactive. */
export const LESSON_TIERS = ["HARD", "STRONG", "SOFT", "RETIRED"] as const;
export const LessonTier = z.enum(LESSON_TIERS);
export type LessonTier = z.infer<typeof LessonTier>;

/** Above this many active lessons a merge step runs (docs/spec/method.md §3.1). */
export const MERGE_ABOVE = 12;
/** At most this many active lessons are kept; the rest are retired with reason "cap". */
export const MAX_ACTIVE_LESSONS = 25;
/** At most this many retired lessons are kept (the most recently retired); older ones are pruned. */
export const MAX_RETIRED_LESSONS = 25;

/** Bounds on what a bank file may hold, so a stranger's file cannot grow a prompt or the process without limit. */
export const LESSON_TEXT_MAX = 1000;
export const REASON_MAX = 500;
const BY_MAX = 100;
const ID_MAX = 200;
const HISTORY_MAX = 100;
const PARENTS_MAX = 100;
/** Active and retired together, as the caps leave a bank, with room for a file written before a merge. */
export const LESSONS_MAX = 200;

const bounded = (max: number) => z.string().min(1).max(max);

/** One tier change as the entry keeps it: the round, from and to, the reason and who gave it. */
const TierChange = z.strictObject({
  round: z.number().int().min(0),
  from: LessonTier,
  to: LessonTier,
  reason: bounded(REASON_MAX),
  by: bounded(BY_MAX).describe('who changed the tier: "reviser", "merge (heuristic)", "cap", a person'),
});

export const Lesson = z.strictObject({
  kind: z.literal("lesson"),
  id: bounded(ID_MAX),
  text: bounded(LESSON_TEXT_MAX).describe("the lesson, one or two sentences"),
  tier: LessonTier,
  generation: z.number().int().min(0).describe("round it was added or last merged"),
  source: z.string().max(REASON_MAX).optional().describe("where it was learned: task or level, intent, iteration"),
  parents: z.array(bounded(ID_MAX)).max(PARENTS_MAX).default([]).describe("ids it was merged from"),
  history: z.array(TierChange).max(HISTORY_MAX).default([]).describe("every tier change since it was added, oldest first"),
});
export type Lesson = z.infer<typeof Lesson>;

/** 0 for HARD … 3 for RETIRED: lower binds more. */
export const tierRank = (t: LessonTier): number => LESSON_TIERS.indexOf(t);

export const isActive = (l: Lesson): boolean => l.tier !== "RETIRED";

/** The round a lesson last changed: its last tier change, else its generation. */
export const lastChange = (l: Lesson): number => l.history.at(-1)?.round ?? l.generation;

/** Why a retired lesson was retired (its last change to RETIRED); undefined for an active one. */
export const retiredReason = (l: Lesson): string | undefined =>
  l.tier === "RETIRED" ? ([...l.history].reverse().find((h) => h.to === "RETIRED")?.reason ?? "retired") : undefined;

/** Most binding first; among equal tiers the most recently changed, then the id (a total order). */
export const byTier = (lessons: readonly Lesson[]): Lesson[] =>
  [...lessons].sort((a, b) => tierRank(a.tier) - tierRank(b.tier) || lastChange(b) - lastChange(a) || a.id.localeCompare(b.id));
