import { ModelOutputError } from "../errors.ts";
import { applyEvent, BankEvent, type Bank } from "./bank.ts";
import { LESSON_TEXT_MAX, Lesson, REASON_MAX, type LessonTier } from "./lesson.ts";

/**
 * The events a caller writes to change lessons (docs/spec/method.md §3.1): a new lesson (STRONG unless said
 * otherwise; HARD for one learned from a catastrophic failure) and a tier change with its reason. What a model's
 * tool call asks is checked here, and an unusable request is a ModelOutputError naming the field, to show back.
 */

/** The next free lesson id of a round: l<round>_<k>. */
export const nextLessonId = (bank: Bank, round: number): string => {
  const taken = new Set([...bank.skills, ...bank.mistakes, ...(bank.lessons ?? [])].map((e) => e.id));
  let k = 1;
  while (taken.has(`l${round}_${k}`)) k++;
  return `l${round}_${k}`;
};

const textOf = (field: string, value: string, max: number): string => {
  const text = value.trim();
  if (!text) throw new ModelOutputError(`${field}: empty (got ${JSON.stringify(value)}); write it in a sentence`);
  if (text.length > max) throw new ModelOutputError(`${field}: ${text.length} characters, over ${max} (got ${JSON.stringify(text.slice(0, 40))}…); shorten it`);
  return text;
};

export interface NewLesson {
  text: string;
  round: number;
  tier?: Exclude<LessonTier, "RETIRED">;
  /** Where it was learned: task or level, intent, iteration. */
  source?: string;
  reason?: string;
}

/** A `lesson_added` event for a new lesson, STRONG by default, checked against the bank it enters. */
export const lessonAdded = (bank: Bank, l: NewLesson): BankEvent => {
  const entry = Lesson.parse({
    kind: "lesson",
    id: nextLessonId(bank, l.round),
    text: textOf("lesson.text", l.text, LESSON_TEXT_MAX),
    tier: l.tier ?? "STRONG",
    generation: l.round,
    ...(l.source ? { source: l.source.slice(0, REASON_MAX) } : {}),
  });
  const event = BankEvent.parse({ schemaVersion: 1, type: "lesson_added", round: l.round, entry, reason: l.reason ?? "" });
  applyEvent(bank, event);
  return event;
};

export interface TierChangeRequest {
  id: string;
  to: LessonTier;
  reason: string;
  by: string;
  round: number;
}

/** A `lesson_tier_changed` event: the lesson must exist and change tier, and the reason is required. */
export const lessonTierChanged = (bank: Bank, c: TierChangeRequest): BankEvent => {
  const lessons = bank.lessons ?? [];
  const lesson = lessons.find((l) => l.id === c.id);
  if (!lesson)
    throw new ModelOutputError(`lesson.id: no such lesson (got ${JSON.stringify(c.id)}); use one of ${lessons.map((l) => l.id).join(", ") || "(none)"}`);
  if (lesson.tier === c.to) throw new ModelOutputError(`lesson.tier: '${c.id}' is already ${c.to} (got ${c.to}); name another tier or leave it`);
  const reason = textOf("lesson.reason", c.reason, REASON_MAX);
  return BankEvent.parse({ schemaVersion: 1, type: "lesson_tier_changed", round: c.round, id: c.id, from: lesson.tier, to: c.to, reason, by: c.by });
};
