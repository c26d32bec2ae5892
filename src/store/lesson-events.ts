import { z } from "zod";
import { InvariantError } from "../errors.ts";
import { LESSON_TIERS, Lesson, LessonTier, REASON_MAX, isActive, tierRank, type LessonTier as Tier } from "./lesson.ts";

/**
 * The bank events that change lessons (docs/spec/method.md §3.1), and how each applies. A tier changes only by
 * `lesson_tier_changed`, which names the tier it leaves (so a replay that disagrees is caught), the reason and
 * who gave it; a merge's result takes the highest tier of its sources. Lessons leave the bank only by `prune`.
 */

const base = { schemaVersion: z.literal(1), round: z.number().int().min(0), evidence: z.array(z.string()).default([]), reason: z.string().default("") };
const reason = z.string().min(1).max(REASON_MAX);

export const LessonAdded = z.object({
  type: z.literal("lesson_added"),
  ...base,
  entry: Lesson.refine((l) => l.tier !== "RETIRED" || l.history.at(-1)?.to === "RETIRED", {
    message: "a lesson enters active (HARD, STRONG or SOFT), or RETIRED only with the change that retired it last in its history",
    path: ["tier"],
  }),
});

export const LessonTierChanged = z.object({
  type: z.literal("lesson_tier_changed"),
  ...base,
  id: z.string().min(1),
  from: LessonTier,
  to: LessonTier,
  reason,
  by: z.string().min(1).max(100),
});

export const LessonsMerged = z.object({
  type: z.literal("lessons_merged"),
  ...base,
  from: z.array(z.string().min(1)).min(2),
  entry: Lesson,
  reason,
});

export type LessonEvent = z.infer<typeof LessonAdded> | z.infer<typeof LessonTierChanged> | z.infer<typeof LessonsMerged>;

const find = (lessons: readonly Lesson[], id: string, e: LessonEvent): Lesson => {
  const l = lessons.find((x) => x.id === id);
  if (!l) throw new InvariantError(`bank: ${e.type} of missing lesson '${id}' (round ${e.round})`);
  return l;
};

/** The highest tier among `tiers` (HARD before STRONG before SOFT before RETIRED). */
export const highestTier = (tiers: readonly Tier[]): Tier => LESSON_TIERS[Math.min(...tiers.map(tierRank))]!;

const merged = (lessons: readonly Lesson[], e: z.infer<typeof LessonsMerged>): Lesson[] => {
  const sources = e.from.map((id) => find(lessons, id, e));
  const retired = sources.filter((s) => !isActive(s));
  if (retired.length) throw new InvariantError(`bank: lessons_merged of retired lesson(s) ${retired.map((s) => s.id).join(", ")} (round ${e.round})`);
  const tier = highestTier(sources.map((s) => s.tier));
  if (e.entry.tier !== tier)
    throw new InvariantError(`bank: lessons_merged into a ${e.entry.tier} lesson from a ${tier} one; the higher tier wins (round ${e.round})`);
  const rest = lessons.filter((l) => !e.from.includes(l.id));
  if (rest.some((l) => l.id === e.entry.id)) throw new InvariantError(`bank: lessons_merged into existing id '${e.entry.id}' (round ${e.round})`);
  return [...rest, e.entry];
};

/** Applies one lesson event to a bank's lessons; an event naming a missing lesson is a hexa bug, never skipped. */
export const applyLessonEvent = (lessons: readonly Lesson[], e: LessonEvent, idTaken: (id: string) => boolean): Lesson[] => {
  switch (e.type) {
    case "lesson_added":
      if (idTaken(e.entry.id)) throw new InvariantError(`bank: lesson_added of existing id '${e.entry.id}' (round ${e.round})`);
      return [...lessons, e.entry];
    case "lesson_tier_changed": {
      const l = find(lessons, e.id, e);
      if (l.tier !== e.from) throw new InvariantError(`bank: lesson_tier_changed of '${e.id}' from ${e.from}, but it is ${l.tier} (round ${e.round})`);
      const change = { round: e.round, from: e.from, to: e.to, reason: e.reason, by: e.by };
      return lessons.map((x) => (x.id === e.id ? { ...x, tier: e.to, history: [...x.history, change] } : x));
    }
    case "lessons_merged":
      return merged(lessons, e);
  }
};
