import { existsSync, mkdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { ConfigError } from "../errors.ts";
import { appendJsonl, readJsonl } from "../store/jsonl.ts";
import { takePidLock } from "../store/pid-lock.ts";

/**
 * Corrections from the user between iterations of a p2p search (docs/spec/reward-search.md §8.6): words such as
 * "land softer" that the reviser must address and the judges take into account. `corrections.jsonl` in the
 * search directory holds one record per correction, appended and flushed before the command that added it says
 * so. A search directory may be a stranger's (a bundle, a copied folder), so the file is read as untrusted input:
 * bounded in bytes, count and length, every line parsed strictly, numbered in order, and a line cut short (a
 * write torn by a crash) refused with the file and line rather than dropped.
 */

export const CORRECTIONS_FILE = "corrections.jsonl";
/** The lock a search holds while it plans an iteration, and an added correction while it is written (p2p.ts). */
export const PLANNING_LOCK = "planning.lock";
/** Characters of one correction, at most: a correction is a sentence or two, not a document. */
export const MAX_CORRECTION_CHARS = 1000;
/** Corrections of one search, at most: each may buy one iteration past the search's stop. */
export const MAX_CORRECTIONS = 20;
/** Bytes of corrections.jsonl, at most: the count times the longest line, with room for escapes. */
const MAX_CORRECTIONS_BYTES = MAX_CORRECTIONS * (MAX_CORRECTION_CHARS * 6 + 200);

const int0 = z.number().int().min(0);
/** A line of plans.jsonl or iterations.jsonl, as far as counting them needs (p2p-log.ts parses them whole). */
const Counted = z.object({ iteration: int0 });

/** The words of a correction: trimmed, 1–MAX_CORRECTION_CHARS characters, no control character (bidirectional ones included) but tab and newline. */
const correctionTextProblem = (text: string): string | null => {
  const t = text.trim();
  if (t.length === 0) return 'empty; say what the behaviour should do differently, e.g. "land softer"';
  if (t.length > MAX_CORRECTION_CHARS) return `${t.length} characters; at most ${MAX_CORRECTION_CHARS}`;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this refuses.
  if (/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/.test(t)) return "holds a control character; write plain text";
  return null;
};

export const CorrectionRecord = z.strictObject({
  schemaVersion: z.literal(1),
  /** Its place among the search's corrections, from 0. */
  index: int0,
  /** The first iteration whose plan must address it: the number of plans written when it was added. */
  iteration: z.number().int().min(1),
  /** The last iteration whose scores the user had seen when adding it (null: none had finished). */
  afterIteration: int0.nullable(),
  text: z.string().superRefine((t, issues) => {
    const problem = correctionTextProblem(t);
    if (problem) issues.addIssue({ code: "custom", message: problem });
  }),
  /** When it was added (ISO 8601, UTC). */
  at: z.iso.datetime(),
});
export type CorrectionRecord = z.infer<typeof CorrectionRecord>;

const lineProblem = (c: CorrectionRecord, i: number, before: CorrectionRecord | undefined): string | null => {
  if (c.index !== i) return `index: ${c.index}, but it is correction ${i} of the file; the corrections are out of order`;
  if (before && c.iteration < before.iteration) return `iteration: ${c.iteration} comes after a correction for iteration ${before.iteration}`;
  if (c.afterIteration !== null && c.afterIteration >= c.iteration) return `afterIteration: ${c.afterIteration} is not before its iteration ${c.iteration}`;
  return null;
};

/** The corrections of a search directory (none without the file), checked as above; a problem names the file, the line and the field. */
export const readCorrections = (dir: string): CorrectionRecord[] => {
  const path = join(dir, CORRECTIONS_FILE);
  if (!existsSync(path)) return [];
  const size = statSync(path).size;
  if (size > MAX_CORRECTIONS_BYTES)
    throw new ConfigError(`${path}: ${size} bytes; a corrections file holds at most ${MAX_CORRECTIONS_BYTES}; it is not hexa's`);
  const text = readFileSync(path, "utf8");
  const lines = text.split("\n");
  if (lines.at(-1) !== "")
    throw new ConfigError(
      `${path}:${lines.length}: a record cut short (no end of line: a write torn by a crash, or an edit); remove that line and add the correction again`,
    );
  const records = readJsonl(path, CorrectionRecord, { repair: false, input: true });
  if (records.length > MAX_CORRECTIONS) throw new ConfigError(`${path}: ${records.length} corrections; a search takes at most ${MAX_CORRECTIONS}`);
  records.forEach((c, i) => {
    const problem = lineProblem(c, i, records[i - 1]);
    if (problem) throw new ConfigError(`${path}:${i + 1}: ${problem}`);
  });
  return records;
};

/**
 * Adds a correction to the p2p search in `dir`, between its iterations: refused while the search plans one (it
 * holds the planning lock, so a correction never lands in the middle of a plan and a replay sees it where the
 * search did), before any iteration was planned, beyond MAX_CORRECTIONS, or with unusable words.
 */
export const addCorrection = (dir: string, text: string, now: Date): CorrectionRecord => {
  const problem = correctionTextProblem(text);
  if (problem) throw new ConfigError(`--correct: ${problem} (got ${JSON.stringify(text.slice(0, 80))})`);
  const release = takePidLock(
    join(dir, PLANNING_LOCK),
    (holder) => `${dir}: the search is planning its next iteration (${holder}); add the correction again once that plan is written`,
  );
  try {
    const plans = readJsonl(join(dir, "plans.jsonl"), Counted, { repair: false });
    if (plans.length === 0)
      throw new ConfigError(`${dir}: no iteration of this p2p search was planned yet; a correction comments on an iteration, so run one first`);
    const before = readCorrections(dir);
    if (before.length >= MAX_CORRECTIONS) throw new ConfigError(`${dir}: already ${before.length} corrections, the most a search takes`);
    const finished = readJsonl(join(dir, "iterations.jsonl"), Counted, { repair: false }).length;
    const record = CorrectionRecord.parse({
      schemaVersion: 1,
      index: before.length,
      iteration: plans.length,
      afterIteration: finished === 0 ? null : finished - 1,
      text: text.trim(),
      at: now.toISOString(),
    });
    // Flushed to disk before returning, so a correction the command reported is never lost.
    appendJsonl(join(dir, CORRECTIONS_FILE), [record]);
    return record;
  } finally {
    release();
  }
};

/**
 * The corrections of the search in `from`, checked, written into the replay's directory `to` before it runs: a
 * replay (hexa verify) reads the user's words from the lineage and asks no one; each reaches the plan it reached.
 */
export const copyCorrections = (from: string, to: string): number => {
  const records = readCorrections(from);
  if (records.length === 0) return 0;
  mkdirSync(to, { recursive: true });
  appendJsonl(join(to, CORRECTIONS_FILE), records);
  return records.length;
};

/**
 * How a plan answered a correction, in the reviser's words; `addressed` false when it could not act on it (a
 * reviser that cannot read words, an unusable answer), so the next plan is asked again.
 */
export const AddressedCorrection = z.strictObject({ correction: int0, how: z.string().min(1).max(2000), addressed: z.boolean() });
export type AddressedCorrection = z.infer<typeof AddressedCorrection>;

/** The corrections the plan of `iteration` must address: added for it or before, and addressed by no earlier plan. */
export const outstandingCorrections = (
  corrections: readonly CorrectionRecord[],
  plans: readonly { iteration: number; revision: { corrections?: readonly AddressedCorrection[] | undefined } }[],
  iteration: number,
): CorrectionRecord[] => {
  const answered = new Set(
    plans.filter((p) => p.iteration < iteration).flatMap((p) => (p.revision.corrections ?? []).filter((a) => a.addressed).map((a) => a.correction)),
  );
  return corrections.filter((c) => c.iteration <= iteration && !answered.has(c.index));
};

/** Why the answers do not address exactly the outstanding corrections, each once with words; null when they do. */
export const addressedProblem = (answers: readonly { correction: number; how: string }[], outstanding: readonly CorrectionRecord[]): string | null => {
  const wanted = new Set(outstanding.map((c) => c.index));
  const seen = new Set<number>();
  for (const a of answers) {
    if (!wanted.has(a.correction))
      return `corrections: correction ${a.correction} is not one to address now; answer ${wanted.size ? [...wanted].join(", ") : "none"}`;
    if (seen.has(a.correction)) return `corrections: correction ${a.correction} answered twice`;
    if (a.how.trim().length === 0) return `corrections: correction ${a.correction}: say how the revision addresses it`;
    seen.add(a.correction);
  }
  const missing = [...wanted].filter((i) => !seen.has(i));
  return missing.length
    ? `corrections: correction${missing.length > 1 ? "s" : ""} ${missing.join(", ")} not addressed; say how this revision addresses each`
    : null;
};

/**
 * The user's corrections as the judges read them (the vision judge's verdict turn, the code judge's authoring):
 * every correction of the search so far, in order, with the iteration after which it came. Empty with none.
 */
export const correctionsForJudges = (corrections: readonly Pick<CorrectionRecord, "text" | "afterIteration">[]): string => {
  if (corrections.length === 0) return "";
  const lines = corrections.map((c, i) => `${i + 1}. ${JSON.stringify(c.text)}${c.afterIteration === null ? "" : ` (after iteration ${c.afterIteration})`}`);
  return [
    "Corrections from the user, given after watching earlier results. They refine what the behaviour wanted means; where one conflicts with an earlier wording, the later correction wins:",
    ...lines,
  ].join("\n");
};
