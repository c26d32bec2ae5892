/**
 * What a judge's code reports for one leaf, `{ id, value, score, passed, note }`, read as untrusted input: a
 * result that cannot be used scores 0 with a tag saying why, and never stops the judgment (docs/guides/judging.md,
 * "Leaf results").
 */
import { z } from "zod";

/**
 * Why a leaf scored 0 or is doubtful. From the result: `missing` (no result for the leaf), `duplicate` (two
 * results), `nan` (score NaN or ±Infinity), `range` (score outside [0, 1]), `shape` (score not a number or passed
 * not a boolean), `inconsistent` (passed but score < 1, or failed with score 1: kept, flagged). From the run of
 * the code (every leaf gets it): `error`, `timeout`, `memory`, `shape`.
 */
export const LeafTag = z.enum(["missing", "duplicate", "nan", "range", "shape", "inconsistent", "error", "timeout", "memory"]);
export type LeafTag = z.infer<typeof LeafTag>;

/** The run's faults, tagging every leaf when the code gave no usable results at all. */
export const RunFaultTag = LeafTag.extract(["error", "timeout", "memory", "shape"]);
export type RunFaultTag = z.infer<typeof RunFaultTag>;

const MAX_NOTE = 500;
const MAX_VALUE_TEXT = 120;

/** A measured value as a report shows it: a finite number, a short text, a yes/no, or none. */
type MeasuredValue = number | string | boolean | null;

export interface CheckedLeaf {
  id: string;
  value: MeasuredValue;
  /** The score used, in [0, 1]: 0 when the result was unusable. */
  score: number;
  passed: boolean;
  note: string;
  tags: LeafTag[];
}

const measured = (v: unknown): MeasuredValue => {
  if (typeof v === "number") return Number.isFinite(v) ? v : String(v);
  if (typeof v === "string") return v.length > MAX_VALUE_TEXT ? `${v.slice(0, MAX_VALUE_TEXT - 1)}…` : v;
  if (typeof v === "boolean") return v;
  return null;
};

/** The id of a raw result, or null when it has none a tree could match. */
export const resultId = (r: unknown): string | null => {
  if (typeof r !== "object" || r === null) return null;
  const id = (r as { id?: unknown }).id;
  if (typeof id === "number" && Number.isInteger(id) && id > 0) return String(id);
  return typeof id === "string" && id.length <= 32 ? id : null;
};

/** One raw result for a known leaf, checked: the score used and the tags that explain it. */
export function checkLeaf(id: string, raw: Record<string, unknown>): CheckedLeaf {
  const note = typeof raw.note === "string" ? raw.note.slice(0, MAX_NOTE) : "";
  const base = { id, value: measured(raw.value), note };
  const { score, passed } = raw;
  if (typeof score !== "number" || typeof passed !== "boolean") return { ...base, score: 0, passed: false, tags: ["shape"] };
  if (!Number.isFinite(score)) return { ...base, score: 0, passed: false, tags: ["nan"] };
  if (score < 0 || score > 1) return { ...base, score: 0, passed: false, tags: ["range"] };
  const inconsistent = (passed && score < 1) || (!passed && score === 1);
  return { ...base, score, passed, tags: inconsistent ? ["inconsistent"] : [] };
}

/** A leaf with no usable result: score 0, failed, with the tag and a note saying why. */
export const failedLeaf = (id: string, tag: LeafTag, note: string): CheckedLeaf => ({ id, value: null, score: 0, passed: false, note, tags: [tag] });
