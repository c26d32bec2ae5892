import { z } from "zod";
import { InvariantError } from "../errors.ts";
import type { Lesson } from "./lesson.ts";
import { applyLessonEvent, LessonAdded, LessonsMerged, LessonTierChanged } from "./lesson-events.ts";

/** Skills and mistakes (docs/spec/method.md §3). Ids are stable across rounds; parents name merged or revised entries. */
export const Evidence = z.object({
  /** Sum of r(τ) over every trajectory cited so far, and how many: the running mean behind the weight. */
  sumR: z.number(),
  count: z.number().int().min(0),
});

export type Evidence = z.infer<typeof Evidence>;

const common = {
  id: z.string().min(1),
  sourceSeeds: z.array(z.number().int()),
  generation: z.number().int().min(0).describe("round it was created or last revised"),
  weight: z.number().min(0).max(1),
  parents: z.array(z.string()).default([]),
  evidence: Evidence,
  payload: z
    .record(z.string(), z.unknown())
    .optional()
    .describe("a family's machine-readable form of the entry (e.g. a heuristic's placement region); never shown to a model"),
};

export const Skill = z.object({
  kind: z.literal("skill"),
  ...common,
  title: z.string().min(1),
  principle: z.string().min(1).describe("2–3 sentences"),
  whenToApply: z.string().min(1),
  example: z.string().optional().describe("concrete numbers only for the same level"),
  sourceType: z.enum(["contrastive", "partial", "evolved", "transfer"]),
});
export type Skill = z.infer<typeof Skill>;

export const Mistake = z.object({
  kind: z.literal("mistake"),
  ...common,
  description: z.string().min(1).describe("what goes wrong"),
  rootCause: z.string().min(1).describe("the broken causal belief"),
  correction: z.string().min(1).describe("what to do instead"),
});
export type Mistake = z.infer<typeof Mistake>;

export const BankEntry = z.discriminatedUnion("kind", [Skill, Mistake]);
export type BankEntry = z.infer<typeof BankEntry>;

/** `lessons` (docs/spec/method.md §3.1) is absent from a bank that never had one, so such banks read and write as before. */
export interface Bank {
  skills: Skill[];
  mistakes: Mistake[];
  lessons?: Lesson[];
}
export const EMPTY_BANK: Bank = { skills: [], mistakes: [] };

/** Every change to a bank, with the round, the evidence (trajectory ids) and the evolver's reason. */
const base = { schemaVersion: z.literal(1), round: z.number().int().min(0), evidence: z.array(z.string()).default([]), reason: z.string().default("") };
const PruneReason = z.enum(["cap", "low_weight", "contradicted", "redundant", "too_narrow", "replaced"]);
export const BankEvent = z.discriminatedUnion("type", [
  z.object({ type: z.literal("add"), ...base, entry: BankEntry }),
  z.object({ type: z.literal("merge"), ...base, from: z.array(z.string()).min(2), entry: BankEntry }),
  z.object({ type: z.literal("revise"), ...base, entry: BankEntry }),
  z.object({ type: z.literal("reweight"), ...base, id: z.string(), weight: z.number().min(0).max(1), evidenceState: Evidence }),
  z.object({ type: z.literal("prune"), ...base, id: z.string(), why: PruneReason }),
  z.object({ type: z.literal("evolver_failure"), ...base, error: z.string() }),
  LessonAdded,
  LessonTierChanged,
  LessonsMerged,
]);
export type BankEvent = z.infer<typeof BankEvent>;
export type BankEventInput = z.input<typeof BankEvent>;

const listOf = (bank: Bank, kind: BankEntry["kind"]): BankEntry[] => (kind === "skill" ? bank.skills : bank.mistakes);

const without = (bank: Bank, ids: readonly string[]): Bank => ({
  ...bank,
  skills: bank.skills.filter((s) => !ids.includes(s.id)),
  mistakes: bank.mistakes.filter((m) => !ids.includes(m.id)),
  ...(bank.lessons ? { lessons: bank.lessons.filter((l) => !ids.includes(l.id)) } : {}),
});

const withEntry = (bank: Bank, entry: BankEntry): Bank =>
  entry.kind === "skill" ? { ...bank, skills: [...bank.skills, entry] } : { ...bank, mistakes: [...bank.mistakes, entry] };

const has = (bank: Bank, id: string) =>
  bank.skills.some((s) => s.id === id) || bank.mistakes.some((m) => m.id === id) || (bank.lessons ?? []).some((l) => l.id === id);

/** Applies one event; an event that names a missing entry is a hexa bug, never silently skipped. */
export const applyEvent = (bank: Bank, e: BankEvent): Bank => {
  switch (e.type) {
    case "add":
      if (has(bank, e.entry.id)) throw new InvariantError(`bank: add of existing id '${e.entry.id}' (round ${e.round})`);
      return withEntry(bank, e.entry);
    case "merge": {
      const missing = e.from.filter((id) => !has(bank, id));
      if (missing.length) throw new InvariantError(`bank: merge from missing ids ${missing.join(", ")} (round ${e.round})`);
      const rest = without(bank, e.from);
      if (has(rest, e.entry.id)) throw new InvariantError(`bank: merge into existing id '${e.entry.id}' (round ${e.round})`);
      return withEntry(rest, e.entry);
    }
    case "revise":
      if (!listOf(bank, e.entry.kind).some((x) => x.id === e.entry.id)) {
        throw new InvariantError(`bank: revise of missing ${e.entry.kind} '${e.entry.id}' (round ${e.round})`);
      }
      return {
        ...bank,
        skills: bank.skills.map((s) => (s.id === e.entry.id && e.entry.kind === "skill" ? e.entry : s)),
        mistakes: bank.mistakes.map((m) => (m.id === e.entry.id && e.entry.kind === "mistake" ? e.entry : m)),
      };
    case "reweight": {
      if (!has(bank, e.id)) throw new InvariantError(`bank: reweight of missing id '${e.id}' (round ${e.round})`);
      const update = <T extends BankEntry>(x: T): T => (x.id === e.id ? { ...x, weight: e.weight, evidence: e.evidenceState } : x);
      return { ...bank, skills: bank.skills.map(update), mistakes: bank.mistakes.map(update) };
    }
    case "prune":
      if (!has(bank, e.id)) throw new InvariantError(`bank: prune of missing id '${e.id}' (round ${e.round})`);
      return without(bank, [e.id]);
    case "evolver_failure":
      return bank;
    case "lesson_added":
    case "lesson_tier_changed":
    case "lessons_merged":
      return { ...bank, lessons: applyLessonEvent(bank.lessons ?? [], e, (id) => has(bank, id)) };
  }
};

/** The bank after every event up to and including `round` (all events when omitted). */
export const foldEvents = (events: readonly BankEvent[], round = Infinity): Bank => events.filter((e) => e.round <= round).reduce(applyEvent, EMPTY_BANK);

/** Heaviest first; among equal weights the more recent generation, then the id (a stable order). */
export const byWeight = <T extends BankEntry>(entries: readonly T[]): T[] =>
  [...entries].sort((a, b) => b.weight - a.weight || b.generation - a.generation || a.id.localeCompare(b.id));

/** Caps enforced in code (docs/spec/method.md §3, ours): keep the heaviest, prune the rest with reason "cap". */
export const capEvents = (bank: Bank, caps: { skills: number; mistakes: number }, round: number): BankEvent[] =>
  (["skill", "mistake"] as const).flatMap((kind) =>
    byWeight(listOf(bank, kind))
      .slice(kind === "skill" ? caps.skills : caps.mistakes)
      .map((x) =>
        BankEvent.parse({
          schemaVersion: 1,
          type: "prune",
          round,
          id: x.id,
          why: "cap",
          reason: `over the cap of ${kind === "skill" ? caps.skills : caps.mistakes} ${kind}s`,
        }),
      ),
  );
