import { byTier, isActive, lastChange, MAX_ACTIVE_LESSONS, retiredReason, type Lesson, type LessonTier } from "../src/store/lesson.ts";

/**
 * The lessons as a prompt shows them (docs/spec/method.md §3.1): the active ones most binding first, each with its
 * tier and what the tier asks; then the most recently retired under a "do not repeat" heading, each with the
 * reason it was retired. Empty when the bank has no lesson, so a prompt without lessons is unchanged.
 */

/** Retired lessons shown in a prompt: the most recently retired (the bank keeps up to MAX_RETIRED_LESSONS). */
export const RETIRED_SHOWN = 10;

const LABEL: Record<Exclude<LessonTier, "RETIRED">, string> = {
  HARD: "HARD",
  STRONG: "STRONG",
  SOFT: "SOFT, challengeable",
};

/** The lessons a prompt shows: up to MAX_ACTIVE_LESSONS active by tier, then up to RETIRED_SHOWN retired, most recent first. */
export const shownLessons = (lessons: readonly Lesson[]): Lesson[] => [
  ...byTier(lessons.filter(isActive)).slice(0, MAX_ACTIVE_LESSONS),
  ...lessons
    .filter((l) => !isActive(l))
    .sort((a, b) => lastChange(b) - lastChange(a) || a.id.localeCompare(b.id))
    .slice(0, RETIRED_SHOWN),
];

const activeBlock = (active: readonly Lesson[]): string[] =>
  active.length === 0
    ? []
    : [
        "## Lessons from earlier iterations (most binding first)",
        "HARD: never violate it. STRONG: follow it unless you have specific evidence against it; say so before you deviate. SOFT: a default, challenge it freely.",
        ...active.map((l, i) => `${i + 1}. [${LABEL[l.tier as keyof typeof LABEL]}] ${l.text}`),
      ];

const retiredBlock = (retired: readonly Lesson[]): string[] =>
  retired.length === 0 ? [] : ["## Retired lessons: do not repeat these mistakes", ...retired.map((l) => `- ${l.text} (retired: ${retiredReason(l)})`)];

export const renderLessonsBlock = (lessons: readonly Lesson[]): string => {
  const shown = shownLessons(lessons);
  const active = activeBlock(shown.filter(isActive));
  const retired = retiredBlock(shown.filter((l) => !isActive(l)));
  return [...active, ...(active.length && retired.length ? [""] : []), ...retired].join("\n");
};
