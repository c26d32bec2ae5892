import { z } from "zod";
import { ModelOutputError } from "../errors.ts";
import { applyEvent, BankEvent, type Bank } from "./bank.ts";
import { byTier, isActive, lastChange, LESSON_TEXT_MAX, MAX_ACTIVE_LESSONS, MAX_RETIRED_LESSONS, MERGE_ABOVE, REASON_MAX, type Lesson } from "./lesson.ts";
import { highestTier } from "./lesson-events.ts";
import { nextLessonId } from "./lesson-log.ts";

/**
 * The lessons' merge rule (docs/spec/method.md §3.1): above MERGE_ABOVE active lessons a merger groups duplicates
 * and each group becomes one lesson with the highest tier of its sources; then at most MAX_ACTIVE_LESSONS stay
 * active (most binding, then most recent; the rest retired with reason "cap") and at most MAX_RETIRED_LESSONS
 * retired ones stay in the bank (the most recently retired; older ones pruned). The merger is a port: a model
 * may answer it; the default is the rule-based `heuristicMerger`. Only the groups come from it: tiers, ids and
 * caps are the rule's.
 */

/** One group of duplicates: the ids merged, the merged lesson's text, and why they are one lesson. */
interface MergeGroup {
  from: string[];
  text: string;
  reason: string;
}

export type LessonMerger = (active: readonly Lesson[]) => Promise<readonly MergeGroup[]> | readonly MergeGroup[];

const MergeAnswer = z
  .array(
    z.strictObject({
      from: z
        .array(z.string().min(1))
        .min(2)
        .max(MAX_ACTIVE_LESSONS * 4),
      text: z.string().trim().min(1).max(LESSON_TEXT_MAX),
      reason: z.string().trim().min(1).max(REASON_MAX),
    }),
  )
  .max(MAX_ACTIVE_LESSONS * 4);

/** Lower case, letters and digits only, single spaces: two lessons that differ only in punctuation or case read the same. */
export const normalised = (text: string): string =>
  text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim();

const tokens = (text: string): Set<string> => new Set(normalised(text).split(" ").filter(Boolean));

/** Jaccard overlap of two lessons' word sets, in [0, 1]. */
export const tokenOverlap = (a: string, b: string): number => {
  const x = tokens(a);
  const y = tokens(b);
  const shared = [...x].filter((t) => y.has(t)).length;
  const union = x.size + y.size - shared;
  return union === 0 ? 1 : shared / union;
};

/** Two lessons sharing this share of their words are taken as one. */
const OVERLAP_THRESHOLD = 0.6;

/**
 * The rule-based merger: lessons in tier order, each joins the first group whose first lesson it repeats (same
 * normalised text, or word overlap ≥ OVERLAP_THRESHOLD), else starts one; a group keeps its first lesson's text.
 */
export const heuristicMerger: LessonMerger = (active) => {
  const groups: { head: Lesson; members: Lesson[]; overlap: number }[] = [];
  for (const l of byTier(active)) {
    const g = groups.find((x) => tokenOverlap(x.head.text, l.text) >= OVERLAP_THRESHOLD);
    if (g) {
      g.members.push(l);
      g.overlap = Math.min(g.overlap, tokenOverlap(g.head.text, l.text));
    } else groups.push({ head: l, members: [l], overlap: 1 });
  }
  return groups
    .filter((g) => g.members.length > 1)
    .map((g) => ({
      from: g.members.map((m) => m.id),
      text: g.head.text,
      reason: g.overlap === 1 ? "the same lesson" : `word overlap ≥ ${g.overlap.toFixed(2)} with '${g.head.id}'`,
    }));
};

/** The merger's answer, checked: each id an active lesson, used by one group at most. */
const checkedGroups = (raw: unknown, active: readonly Lesson[]): MergeGroup[] => {
  const parsed = MergeAnswer.safeParse(raw);
  if (!parsed.success) {
    const i = parsed.error.issues[0]!;
    throw new ModelOutputError(`lesson merge: groups.${i.path.join(".")}: ${i.message}; answer groups of ≥ 2 lesson ids with a text and a reason`);
  }
  const known = new Set(active.map((l) => l.id));
  const used = new Set<string>();
  parsed.data.forEach((g, i) =>
    g.from.forEach((id) => {
      if (!known.has(id)) throw new ModelOutputError(`lesson merge: groups.${i}.from: not an active lesson (got '${id}'); merge only ${[...known].join(", ")}`);
      if (used.has(id)) throw new ModelOutputError(`lesson merge: groups.${i}.from: '${id}' is in two groups; put each lesson in one group at most`);
      used.add(id);
    }),
  );
  return parsed.data;
};

/** Applies events one by one, keeping them: each later event is made against the bank the earlier ones leave. */
const recorder = (start: Bank) => {
  let bank = start;
  const out: BankEvent[] = [];
  return {
    bank: () => bank,
    push: (raw: unknown) => {
      const e = BankEvent.parse(raw);
      bank = applyEvent(bank, e);
      out.push(e);
    },
    events: () => out,
  };
};

const mergeEvent = (bank: Bank, g: MergeGroup, round: number) => {
  const sources = g.from.map((id) => bank.lessons!.find((l) => l.id === id)!);
  const entry = {
    kind: "lesson",
    id: nextLessonId(bank, round),
    text: g.text,
    tier: highestTier(sources.map((s) => s.tier)),
    generation: round,
    parents: g.from,
    history: [],
    ...(sources[0]!.source ? { source: sources[0]!.source } : {}),
  };
  return { schemaVersion: 1, type: "lessons_merged", round, from: g.from, entry, reason: g.reason };
};

const capEventsOf = (bank: Bank, round: number): unknown[] =>
  byTier((bank.lessons ?? []).filter(isActive))
    .slice(MAX_ACTIVE_LESSONS)
    .map((l) => ({
      schemaVersion: 1,
      type: "lesson_tier_changed",
      round,
      id: l.id,
      from: l.tier,
      to: "RETIRED",
      reason: `over the cap of ${MAX_ACTIVE_LESSONS} active lessons (the most binding, then the most recent, are kept)`,
      by: "cap",
    }));

const pruneEventsOf = (bank: Bank, round: number): unknown[] =>
  (bank.lessons ?? [])
    .filter((l) => !isActive(l))
    .sort((a, b) => lastChange(b) - lastChange(a) || a.id.localeCompare(b.id))
    .slice(MAX_RETIRED_LESSONS)
    .map((l) => ({ schemaVersion: 1, type: "prune", round, id: l.id, why: "cap", reason: `over the cap of ${MAX_RETIRED_LESSONS} retired lessons` }));

/**
 * The events that bring a bank's lessons within the rule: merges (only above MERGE_ABOVE active lessons), then
 * retirements over MAX_ACTIVE_LESSONS, then prunes of retired lessons over MAX_RETIRED_LESSONS. None when within.
 */
export const lessonMergeEvents = async (bank: Bank, round: number, merger: LessonMerger = heuristicMerger): Promise<BankEvent[]> => {
  const log = recorder(bank);
  const active = (bank.lessons ?? []).filter(isActive);
  if (active.length > MERGE_ABOVE) {
    for (const g of checkedGroups(await merger(active), active)) log.push(mergeEvent(log.bank(), g, round));
  }
  capEventsOf(log.bank(), round).forEach(log.push);
  pruneEventsOf(log.bank(), round).forEach(log.push);
  return log.events();
};
