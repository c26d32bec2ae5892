import type { z } from "zod";
import { ConfigError } from "../errors.ts";
import { byWeight, Mistake, Skill, type Bank, type BankEntry, type BankEvent } from "./bank.ts";
import { Lesson } from "./lesson.ts";
import { valueAt } from "../util/value-at.ts";

/**
 * A bank checked where it enters a run (a shipped or transferred bank file, a run directory's recorded bank):
 * with the bank schema and the family's payload schema (LevelFamily.heuristics?.payload), the schemas its episodes read
 * the entries with, so an entry they could not use is refused by file, id and field before anything is written.
 */

/** The family's schema of an entry's `payload`; undefined: any record. */
export type PayloadSchema = z.ZodType | undefined;

export interface BankCaps {
  skills: number;
  mistakes: number;
}

const SHOWN_CHARS = 80;

const shown = (v: unknown): string => {
  const text = JSON.stringify(v) ?? String(v);
  return text.length > SHOWN_CHARS ? `${text.slice(0, SHOWN_CHARS)}…` : text;
};

const issueText = (issue: z.core.$ZodIssue, root: unknown, prefix: readonly PropertyKey[]): string =>
  `${[...prefix, ...issue.path].map(String).join(".") || "(entry)"}: ${issue.message} (got ${shown(valueAt(root, issue.path))})`;

/** What is wrong with one entry as read, `<field>: <what> (got <value>)`; undefined when its episodes can use it. */
const entryProblem = (raw: unknown, schema: typeof Skill | typeof Mistake, payload: PayloadSchema): string | undefined => {
  const entry = schema.safeParse(raw);
  if (!entry.success) return issueText(entry.error.issues[0]!, raw, []);
  if (!payload || entry.data.payload === undefined) return undefined;
  const checked = payload.safeParse(entry.data.payload);
  return checked.success ? undefined : issueText(checked.error.issues[0]!, entry.data.payload, ["payload"]);
};

const idOf = (raw: unknown): string | undefined => {
  const id = (raw as { id?: unknown } | null)?.id;
  return typeof id === "string" && id !== "" ? id : undefined;
};

type Key = "skills" | "mistakes" | "lessons";
const KIND: Record<Key, string> = { skills: "skill", mistakes: "mistake", lessons: "lesson" };

/** What is wrong with one entry of a list, by its schema (and, for skills and mistakes, the family's payload schema). */
const problemIn = (key: Key, raw: unknown, payload: PayloadSchema): string | undefined => {
  if (key !== "lessons") return entryProblem(raw, key === "skills" ? Skill : Mistake, payload);
  const lesson = Lesson.safeParse(raw);
  return lesson.success ? undefined : issueText(lesson.error.issues[0]!, raw, []);
};

/**
 * A bank file's entries, each checked (the first bad one refused, naming the file, the entry and the field) and
 * every id used once, as the bank log requires (src/store/bank.ts applyEvent). `lessons` stays absent when the
 * file has none, so such a bank reads as before.
 */
export const checkBankEntries = (
  file: string,
  lists: { skills: readonly unknown[]; mistakes: readonly unknown[]; lessons?: readonly unknown[] | undefined },
  payload: PayloadSchema,
): Bank => {
  const seen = new Map<string, string>();
  const read = (key: Key, list: readonly unknown[]): unknown[] =>
    list.map((raw, i) => {
      const where = `${key}[${i}]`;
      const id = idOf(raw);
      const label = `${KIND[key]} ${id ? `'${id}' (${where})` : where}`;
      const problem = problemIn(key, raw, payload);
      if (problem) throw new ConfigError(`${file}: ${label}: ${problem}; correct the entry or remove it from the file`);
      const first = seen.get(id!);
      if (first) throw new ConfigError(`${file}: ${label}: id '${id}' is also ${first}'s; give every entry its own id`);
      seen.set(id!, where);
      return raw;
    });
  const skills = read("skills", lists.skills).map((raw) => Skill.parse(raw));
  const mistakes = read("mistakes", lists.mistakes).map((raw) => Mistake.parse(raw));
  if (lists.lessons === undefined) return { skills, mistakes };
  return { skills, mistakes, lessons: read("lessons", lists.lessons).map((raw) => Lesson.parse(raw)) };
};

/**
 * The bank within the caps, as every update leaves one (docs/spec/method.md §3: sort by weight, keep the first),
 * and a line for each kind that was over, naming the count and the cap.
 */
export const withinCaps = (file: string, bank: Bank, caps: BankCaps): { bank: Bank; notes: string[] } => {
  const notes: string[] = [];
  const keep = <T extends BankEntry>(entries: readonly T[], cap: number, kind: string, key: string): T[] => {
    if (entries.length <= cap) return [...entries];
    notes.push(`${file}: ${entries.length} ${kind}s, over the cap of ${cap} (bank.${key}); the ${cap} heaviest are kept (docs/spec/method.md §3)`);
    return byWeight(entries).slice(0, cap);
  };
  return {
    bank: { ...bank, skills: keep(bank.skills, caps.skills, "skill", "maxSkills"), mistakes: keep(bank.mistakes, caps.mistakes, "mistake", "maxMistakes") },
    notes,
  };
};

/** What is wrong with the entry a bank event enters (add, merge, revise), as the bank's reader sees it; undefined when nothing is. */
export const eventProblem = (e: BankEvent, payload: PayloadSchema): string | undefined =>
  e.type === "add" || e.type === "merge" || e.type === "revise" ? entryProblem(e.entry, e.entry.kind === "skill" ? Skill : Mistake, payload) : undefined;

/**
 * Refuses a run's recorded bank (bank-events.jsonl) holding an entry its episodes could not use: one entered
 * from a file before files were checked, or edited by hand. `events` are the committed events, by level.
 */
export const checkRecordedBank = (file: string, events: ReadonlyMap<string, readonly BankEvent[]>, payload: PayloadSchema): void => {
  for (const [level, list] of events) {
    for (const e of list) {
      const problem = eventProblem(e, payload);
      if (problem && (e.type === "add" || e.type === "merge" || e.type === "revise"))
        throw new ConfigError(
          `${file}: ${level}, round ${e.round}, ${e.type} of ${e.entry.kind} '${e.entry.id}': ${problem}; the run's episodes cannot use this entry: correct it in that line, or start a new run from a valid bank`,
        );
    }
  }
};
