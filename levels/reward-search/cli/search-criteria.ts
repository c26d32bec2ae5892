/**
 * `hexa search --intent … --criteria FILE` (docs/guides/prompt-to-policy.md): the 5–10 criteria the user accepts
 * for the intent, one per line (a leading "-", "*" or "1." dropped; blank lines and lines starting with "#"
 * skipped). They are recorded in search-config.json and the vision judge uses them instead of asking for its own.
 */
import { z } from "zod";
import { ConfigError } from "../../../src/errors.ts";
import { MAX_USER_CRITERIA } from "../judging/vision-criteria.ts";
import { readFlagFile } from "../../../src/cli-kit/flag-file.ts";

export const MIN_USER_CRITERIA = 5;
const MAX_CRITERIA_FILE_BYTES = 16 * 1024;

export const UserCriteria = z.array(z.string().trim().min(3).max(300)).min(MIN_USER_CRITERIA).max(MAX_USER_CRITERIA);

/** The criteria of a file, refused naming the line or the count. */
export const readCriteriaFile = (path: string): string[] => {
  const lines = readFlagFile("criteria", path, MAX_CRITERIA_FILE_BYTES, `give ${MIN_USER_CRITERIA}–${MAX_USER_CRITERIA} lines`)
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith("#"))
    .map((l) => l.replace(/^(?:[-*]|\d+[.)])\s+/, ""));
  const r = UserCriteria.safeParse(lines);
  if (r.success) return r.data;
  const i = r.error.issues[0]!;
  const where = i.path.length ? `criterion ${Number(i.path[0]) + 1}` : `${lines.length} criteria`;
  throw new ConfigError(`--criteria: ${path}: ${where}: ${i.message}; give ${MIN_USER_CRITERIA}–${MAX_USER_CRITERIA} criteria, one per line, each a sentence`);
};
