import type { Bank, BankEntry } from "../src/store/bank.ts";

/**
 * The citation audit of a transferred bank (docs/spec/method.md §6), checked in code for every synthesiser:
 * citations must name source entries that exist (an entry citing nothing real is dropped), the text may name
 * only the target's objects, numbers must come from the target description, and a weight ≥ 0.7 needs its
 * primitive in ≥ 2 source banks (read as: real citations from ≥ 2 source levels), else it is capped at 0.69.
 */

interface Citation {
  level: string;
  id: string;
}

export type AuditFlag =
  | { kind: "missing_citation"; level: string; id: string }
  | { kind: "no_real_citation" }
  | { kind: "unknown_object"; name: string; field: string }
  | { kind: "invented_number"; value: string; field: string }
  | { kind: "weight_capped"; from: number; to: number; levels: string[] };

export interface AuditRow {
  id: string;
  kind: BankEntry["kind"];
  /** Title (skills) or description (mistakes), for the report. */
  text: string;
  cites: Citation[];
  dropped: boolean;
  flags: AuditFlag[];
}

/** An entry as a synthesiser proposed it, with the source entries it says it maps. */
export interface Candidate {
  entry: BankEntry;
  cites: readonly Citation[];
}

export interface AuditContext {
  sources: readonly { level: string; bank: Bank }[];
  targetDescription: string;
  /** The target's object names (family.checks.objectsOf); undefined: the family has no such hook and the check is skipped. */
  targetObjects?: readonly string[];
  /** Object names of every level of the family: a mention of one of these outside the target is flagged. */
  familyObjects?: readonly string[];
  /** Level ids, which an entry may name (e.g. "transferred from two_body_problem") without being flagged. */
  levelIds?: readonly string[];
}

/** Weight from which the shared-primitive rule applies, and the cap below it (docs/spec/method.md §6). */
const SHARED_WEIGHT = 0.7;
const SINGLE_SOURCE_CAP = 0.69;

const fieldsOf = (e: BankEntry): [string, string][] =>
  e.kind === "skill"
    ? [["title", e.title], ["principle", e.principle], ["whenToApply", e.whenToApply], ...(e.example ? ([["example", e.example]] as [string, string][]) : [])]
    : [
        ["description", e.description],
        ["rootCause", e.rootCause],
        ["correction", e.correction],
      ];

// A number not glued to the end of a word ("x1", "s0_1" and "cartpole_hold_x1" are names, not numbers); "2.5m" is 2.5.
const NUMBER = /(?<![\w.])[-+−]?\d+(?:\.\d+)?/g;
const numbersIn = (text: string): string[] => (text.match(NUMBER) ?? []).map((n) => n.replace(/^[-+−]/, ""));
const SNAKE = /\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b/g;

const words = (name: string) => name.toLowerCase().replace(/_/g, " ");
/** "info.fell" is read as "fell" where the target's names are compared: a qualified name says how text cites it. */
const bare = (name: string) => name.slice(name.lastIndexOf(".") + 1);
const mentions = (text: string, phrase: string) =>
  new RegExp(`(?<![\\w])${phrase.replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/ /g, "[ _]")}(?![\\w])`, "i").test(text);

/**
 * Object names in `text` that the target does not have (and its description does not mention): any family name
 * the text mentions (as the family writes it: "purple_ground" or "purple ground"; "info.fell") and any
 * snake_case word, which reads as an object's id.
 */
export const unknownObjects = (text: string, ctx: AuditContext): string[] => {
  if (!ctx.targetObjects) return [];
  const target = new Set(ctx.targetObjects.map((n) => words(bare(n))));
  const levels = new Set(ctx.levelIds ?? []);
  const description = ctx.targetDescription.toLowerCase();
  const allowed = (name: string) => target.has(words(bare(name))) || levels.has(name) || mentions(description, words(bare(name)));
  const named = new Set([...(ctx.familyObjects ?? []).filter((n) => mentions(text, words(n))), ...(text.match(SNAKE) ?? [])]);
  // "gray ball" inside "gray_ball" is one object: keep the longest names only.
  const names = [...named].filter((n) => !allowed(n));
  return names.filter((n) => !names.some((m) => m !== n && words(m).includes(words(n)))).sort();
};

/** Numbers in `text` that do not appear in the target description. */
export const inventedNumbers = (text: string, targetDescription: string): string[] => {
  const known = new Set(numbersIn(targetDescription).map(Number));
  return [...new Set(numbersIn(text))].filter((n) => !known.has(Number(n)));
};

/** Applies the audit: the bank that survives (entries citing nothing real dropped, weights capped) and one row per candidate. */
export const auditSynthesis = (candidates: readonly Candidate[], ctx: AuditContext): { bank: Bank; audit: AuditRow[] } => {
  const exists = new Map(ctx.sources.map((s) => [s.level, new Set([...s.bank.skills, ...s.bank.mistakes].map((e) => e.id))]));
  const bank: Bank = { skills: [], mistakes: [] };
  const audit = candidates.map(({ entry, cites }): AuditRow => {
    const flags: AuditFlag[] = [];
    const real = cites.filter((c) => exists.get(c.level)?.has(c.id));
    cites.filter((c) => !real.includes(c)).forEach((c) => flags.push({ kind: "missing_citation", level: c.level, id: c.id }));
    const text = entry.kind === "skill" ? entry.title : entry.description;
    if (!real.length) {
      flags.push({ kind: "no_real_citation" });
      return { id: entry.id, kind: entry.kind, text, cites: [...cites], dropped: true, flags };
    }
    for (const [field, value] of fieldsOf(entry)) {
      unknownObjects(value, ctx).forEach((name) => flags.push({ kind: "unknown_object", name, field }));
      inventedNumbers(value, ctx.targetDescription).forEach((v) => flags.push({ kind: "invented_number", value: v, field }));
    }
    const levels = [...new Set(real.map((c) => c.level))].sort();
    let kept = entry;
    if (entry.weight >= SHARED_WEIGHT && levels.length < 2) {
      flags.push({ kind: "weight_capped", from: entry.weight, to: SINGLE_SOURCE_CAP, levels });
      kept = { ...entry, weight: SINGLE_SOURCE_CAP };
    }
    kept = { ...kept, parents: real.map((c) => `${c.level}/${c.id}`) };
    if (kept.kind === "skill") bank.skills.push(kept);
    else bank.mistakes.push(kept);
    return { id: entry.id, kind: entry.kind, text, cites: real, dropped: false, flags };
  });
  return { bank, audit };
};

/** One line per flag, e.g. `ts3: unknown object purple_ground in principle`. */
export const flagText = (f: AuditFlag): string => {
  switch (f.kind) {
    case "missing_citation":
      return `cites ${f.level}/${f.id}, which is not in that source bank (citation removed)`;
    case "no_real_citation":
      return "cites no existing source entry (entry dropped)";
    case "unknown_object":
      return `names ${f.name} in ${f.field}, not an object of the target`;
    case "invented_number":
      return `number ${f.value} in ${f.field} is not in the target description`;
    case "weight_capped":
      return `weight ${f.from.toFixed(2)} capped at ${f.to} (its primitive is cited from ${f.levels.length} source bank${f.levels.length === 1 ? "" : "s"}; ≥ 0.7 needs 2)`;
  }
};
