import { appendFileSync, closeSync, existsSync, fsyncSync, openSync, readFileSync, truncateSync } from "node:fs";
import type { z } from "zod";
import { ConfigError } from "../errors.ts";
import { writeAtomic } from "../util/write-atomic.ts";

export { writeAtomic };

/**
 * Append-only JSON-lines files and atomic whole-file writes: what a run directory is made of, so that a
 * process killed at any moment leaves every file readable (docs/spec/method.md §10: nothing lost on a crash).
 */

/** Appends records as lines in one write, flushed to disk before returning. */
export const appendJsonl = (path: string, records: readonly unknown[]): void => {
  if (records.length === 0) return;
  const fd = openSync(path, "a");
  try {
    appendFileSync(fd, records.map((r) => `${JSON.stringify(r)}\n`).join(""));
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
};

/** One line of a JSONL file, parsed with the schema; a bad line is an error naming the file, the line and the field. */
export const parseJsonLine = <S extends z.ZodType>(path: string, lineNo: number, line: string, schema: S): z.infer<S> => {
  let raw: unknown;
  try {
    raw = JSON.parse(line);
  } catch (e) {
    throw new ConfigError(`${path}:${lineNo}: not valid JSON (${(e as Error).message}); the file was edited or damaged`);
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ConfigError(`${path}:${lineNo}: ${issue.path.join(".") || "(record)"}: ${issue.message}`);
  }
  return parsed.data;
};

/**
 * Reads a JSONL file, parsing each line with the schema. A last line without its newline is a write torn by
 * a crash: it is ignored, and cut off the file unless `repair: false` (the caller redoes that work); a bad line
 * anywhere else is an error that names the file and line. `input: true` reads a file hexa never appends to
 * (e.g. offline trajectories): nothing is cut, and a bad last line is an error too.
 */
export const readJsonl = <S extends z.ZodType>(path: string, schema: S, opts: { repair?: boolean; input?: boolean } = {}): z.infer<S>[] => {
  if (!existsSync(path)) return [];
  const text = readFileSync(path, "utf8");
  // An input file (not a log hexa appends to) may end without a newline: its last line is a line like any other.
  const complete = text.endsWith("\n") || opts.input ? text : text.slice(0, text.lastIndexOf("\n") + 1);
  if (complete.length !== text.length && opts.repair !== false) truncateSync(path, Buffer.byteLength(complete));
  return complete
    .split("\n")
    .filter((l) => l.trim() !== "")
    .map((line, i) => parseJsonLine(path, i + 1, line, schema));
};

export const writeJsonAtomic = (path: string, value: unknown): void => writeAtomic(path, `${JSON.stringify(value, null, 2)}\n`);
