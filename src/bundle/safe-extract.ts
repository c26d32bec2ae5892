import { lstatSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { list as listTar, extract as extractTar, type ReadEntry } from "tar";
import { ConfigError } from "../errors.ts";

/**
 * Unpacking a bundle that may come from anyone (docs/security.md): every entry is checked before anything is
 * written, and again as it is written. Refused: a link or a device, an absolute path or one with `..`, a path
 * outside the one top folder, and an archive over the caps on entry size, total size and entry count.
 */

export interface ExtractLimits {
  entryBytes: number;
  totalBytes: number;
  entries: number;
  /** Folders deep below the top folder. */
  depth: number;
}

const GiB = 1024 ** 3;
export const BUNDLE_LIMITS: ExtractLimits = { entryBytes: 4 * GiB, totalBytes: 16 * GiB, entries: 200_000, depth: 16 };

const ALLOWED_TYPES = new Set(["File", "OldFile", "ContiguousFile", "Directory"]);
/** Names a path segment may have: no NUL, no backslash (a separator elsewhere), no `.`/`..`. */
const BAD_SEGMENT = (s: string): boolean => s === "" || s === "." || s === ".." || /[\0\\]/.test(s);

interface Tally {
  top: string | undefined;
  entries: number;
  bytes: number;
}

/** Why an entry is refused, or undefined: the same test before and during extraction. */
const entryProblem = (entry: Pick<ReadEntry, "type" | "path" | "size">, tally: Tally, limits: ExtractLimits): string | undefined => {
  const path = entry.path;
  if (!ALLOWED_TYPES.has(entry.type)) return `${JSON.stringify(path)}: a ${entry.type} entry; a bundle holds only files and folders`;
  if (path.startsWith("/") || /^[A-Za-z]:/.test(path)) return `${JSON.stringify(path)}: an absolute path`;
  const segments = path.replace(/\/$/, "").split("/");
  if (segments.some(BAD_SEGMENT)) return `${JSON.stringify(path)}: a path with an empty, "." or ".." part, a backslash or a NUL`;
  if (segments.length - 1 > limits.depth) return `${JSON.stringify(path)}: deeper than ${limits.depth} folders`;
  tally.top ??= segments[0];
  if (segments[0] !== tally.top) return `${JSON.stringify(path)}: outside the bundle's one top folder ${tally.top}/`;
  if (entry.size > limits.entryBytes) return `${JSON.stringify(path)}: ${entry.size} bytes, over the ${limits.entryBytes} a bundle entry may have`;
  tally.entries += 1;
  tally.bytes += entry.size;
  if (tally.entries > limits.entries) return `more than ${limits.entries} entries`;
  if (tally.bytes > limits.totalBytes) return `more than ${limits.totalBytes} bytes in all`;
  return undefined;
};

const refuse = (file: string, problem: string): ConfigError =>
  new ConfigError(
    `${file}: refused as a bundle (${problem}); a bundle made by hexa bundle has none of that, so this file was made or changed by something else`,
  );

/** Lists the archive (decompressing it, writing nothing) and throws at the first entry refused; returns the top folder. */
const checkListing = (file: string, limits: ExtractLimits): string => {
  const tally: Tally = { top: undefined, entries: 0, bytes: 0 };
  let problem: string | undefined;
  try {
    listTar({
      file,
      sync: true,
      strict: true,
      onReadEntry: (entry) => {
        problem ??= entryProblem(entry, tally, limits);
        entry.resume();
      },
    });
  } catch (e) {
    throw refuse(file, `not a readable .tar.gz: ${(e as Error).message}`);
  }
  if (problem) throw refuse(file, problem);
  if (tally.top === undefined) throw refuse(file, "an empty archive");
  return tally.top;
};

/** A link or special file under `dir` (none should be there once extraction is done). */
const oddEntry = (dir: string): string | undefined => {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, e.name);
    if (e.isDirectory()) {
      const below = oddEntry(path);
      if (below) return below;
    } else if (!e.isFile() || lstatSync(path).isSymbolicLink()) return path;
  }
  return undefined;
};

/** Extracts `file` into the empty folder `dest`, checked as described above; returns the path of its top folder. */
export const extractBundle = (file: string, dest: string, limits: ExtractLimits = BUNDLE_LIMITS): string => {
  const top = checkListing(file, limits);
  const tally: Tally = { top, entries: 0, bytes: 0 };
  let problem: string | undefined;
  try {
    extractTar({
      file,
      cwd: dest,
      sync: true,
      strict: true,
      preservePaths: false,
      maxDepth: limits.depth + 1,
      // Between the listing and this pass the file may have changed: each entry is checked again.
      filter: (_path, entry) => {
        const why = entryProblem(entry as ReadEntry, tally, limits);
        problem ??= why;
        return why === undefined;
      },
    });
  } catch (e) {
    throw refuse(file, `extraction failed: ${(e as Error).message}`);
  }
  if (problem) throw refuse(file, problem);
  const odd = oddEntry(dest);
  if (odd) throw refuse(file, `${odd} is not a plain file after extraction`);
  return join(dest, top);
};
