import { byTier, retiredReason, type Lesson } from "../store/lesson.ts";

/**
 * A bank's lessons as `hexa bank show` prints them (docs/spec/method.md §3.1): most binding first, retired last,
 * each with its tier, where it was learned, what it was merged from, and every tier change with its reason.
 */
const lessonLines = (l: Lesson): string[] => [
  `  ${l.id}  ${l.tier.padEnd(7)}  ${l.text}`,
  ...(l.source ? [`    learned:  ${l.source}`] : []),
  ...(l.parents.length ? [`    merged from: ${l.parents.join(", ")}`] : []),
  ...l.history.map((h) => `    round ${h.round}: ${h.from} → ${h.to} by ${h.by} — ${h.reason}`),
  ...(l.tier === "RETIRED" ? [`    retired because: ${retiredReason(l)}`] : []),
];

export const lessonsText = (lessons: readonly Lesson[]): string[] => [
  "lessons, most binding first (HARD never violated, STRONG followed unless evidence says otherwise, SOFT challengeable, RETIRED inactive):",
  ...(lessons.length ? byTier(lessons).flatMap(lessonLines) : ["  (none)"]),
];
