import { applyEvent, EMPTY_BANK, type Bank } from "./bank.ts";
import type { Lesson } from "./lesson.ts";
import { lessonMergeEvents, type LessonMerger } from "./lesson-merge.ts";

/**
 * The lessons a transferred bank carries to a new level (docs/spec/method.md §3.1, §6): every source's lessons with
 * their tiers and history, ids prefixed by the source level so two sources never collide, then the merge rule over
 * the union (duplicates across sources merged, the higher tier winning; at most 25 active and 25 retired kept).
 */
export const carriedLessons = async (sources: readonly { level: string; bank: Bank }[], merger?: LessonMerger): Promise<Lesson[]> => {
  const renamed = sources.flatMap(({ level, bank }) =>
    (bank.lessons ?? []).map((l) => ({ ...l, id: `${level}_${l.id}`, parents: l.parents.map((p) => `${level}_${p}`), source: l.source ?? level })),
  );
  if (!renamed.length) return [];
  const union: Bank = { ...EMPTY_BANK, lessons: renamed };
  const events = await lessonMergeEvents(union, 0, merger);
  return events.reduce(applyEvent, union).lessons ?? [];
};
