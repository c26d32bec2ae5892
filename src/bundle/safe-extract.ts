import { createHash } from "node:crypto";
import { createWriteStream, lstatSync, mkdirSync, readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { finished } from "node:stream/promises";
import { Parser, type ReadEntry } from "tar";
import { ConfigError } from "../errors.ts";
import { type GunzipBounds, gunzipInto, type Verdict } from "./gunzip-stream.ts";

/**
 * Unpacking a bundle that may come from anyone (docs/security.md): the archive is read twice as a stream, once to
 * check every entry and once to write them, each entry checked from its header before a byte of its body is
 * decompressed. Refused: a link or a device, an absolute path or one with `..`, a path outside the one top folder,
 * a path twice, an entry over the size cap, an archive over the caps on total size, entry count and
 * decompression ratio. Memory holds a few 64 KiB pieces whatever the archive (gunzip-stream.ts).
 */

export interface ExtractLimits {
  entryBytes: number;
  totalBytes: number;
  entries: number;
  /** Folders deep below the top folder. */
  depth: number;
  /** Most decompressed bytes per compressed byte, once past `ratioFloorBytes`. */
  ratio: number;
  ratioFloorBytes: number;
}

const MiB = 1024 ** 2;
const GiB = 1024 ** 3;
/**
 * hexa's records compress some 5 to 20 times, a model log that repeats each conversation in the next request some
 * 60 to 70 times; zeros about 1000 times. 200 leaves an honest bundle inside the bound and refuses a bomb after its
 * first 64 MiB.
 */
export const BUNDLE_LIMITS: ExtractLimits = { entryBytes: 4 * GiB, totalBytes: 16 * GiB, entries: 200_000, depth: 16, ratio: 200, ratioFloorBytes: 64 * MiB };

/** Longest path an entry may have: a run's files lie a few folders deep under an id of about 100 characters. */
const PATH_CHARS = 1024;

/** What a tar adds to an entry's bytes: its header, a pax header for a long path, the padding to 512. */
const ENTRY_OVERHEAD_BYTES = 4096;

const ALLOWED_TYPES = new Set(["File", "OldFile", "ContiguousFile", "Directory"]);
/** Names a path segment may have: no NUL, no backslash (a separator elsewhere), no `.`/`..`. */
const BAD_SEGMENT = (s: string): boolean => s === "" || s === "." || s === ".." || /[\0\\]/.test(s);

interface Tally {
  top: string | undefined;
  entries: number;
  bytes: number;
  /** A digest of each path seen: 200,000 paths of 1024 characters would not fit the memory bound. */
  paths: Set<string>;
  /** The entry whose body is being read, named in a refusal of the ratio. */
  current: string | undefined;
}

const freshTally = (top?: string): Tally => ({ top, entries: 0, bytes: 0, paths: new Set(), current: undefined });

/** An entry's path as a refusal names it: quoted, and cut short when long. */
const nameOf = (path: string): string => (path.length > 200 ? `${JSON.stringify(path.slice(0, 200))}…` : JSON.stringify(path));

const pathProblem = (path: string, tally: Tally, limits: ExtractLimits): string | undefined => {
  if (path.length > PATH_CHARS) return `a path of ${path.length} characters, over ${PATH_CHARS}`;
  if (path.startsWith("/") || /^[A-Za-z]:/.test(path)) return "an absolute path";
  const segments = path.replace(/\/$/, "").split("/");
  if (segments.some(BAD_SEGMENT)) return 'a path with an empty, "." or ".." part, a backslash or a NUL';
  if (segments.length - 1 > limits.depth) return `deeper than ${limits.depth} folders`;
  tally.top ??= segments[0];
  if (segments[0] !== tally.top) return `outside the bundle's one top folder ${tally.top}/`;
  const key = createHash("sha256").update(segments.join("/")).digest("base64");
  if (tally.paths.has(key)) return "a second entry of the same path";
  tally.paths.add(key);
  return undefined;
};

/** Why an entry is refused, read from its header alone, or undefined: the same test in both passes. */
const entryProblem = (entry: Pick<ReadEntry, "type" | "path" | "size">, tally: Tally, limits: ExtractLimits): string | undefined => {
  const name = nameOf(entry.path);
  if (!ALLOWED_TYPES.has(entry.type)) return `${name}: a ${entry.type} entry; a bundle holds only files and folders`;
  const bad = pathProblem(entry.path, tally, limits);
  if (bad) return `${name}: ${bad}`;
  if (entry.size > limits.entryBytes) return `${name}: ${entry.size} bytes, over the ${limits.entryBytes} a bundle entry may have`;
  tally.entries += 1;
  tally.bytes += entry.size;
  tally.current = entry.path;
  if (tally.entries > limits.entries) return `more than ${limits.entries} entries`;
  if (tally.bytes > limits.totalBytes) return `${name}: more than ${limits.totalBytes} bytes in all with the entries before it`;
  return undefined;
};

const refuse = (file: string, problem: string): ConfigError =>
  new ConfigError(
    `${file}: refused as a bundle (${problem}); a bundle made by hexa bundle has none of that, so this file was made or changed by something else`,
  );

const boundsOf = (limits: ExtractLimits): GunzipBounds => ({
  streamBytes: limits.totalBytes + (limits.entries + 1) * ENTRY_OVERHEAD_BYTES,
  ratio: limits.ratio,
  ratioFloorBytes: limits.ratioFloorBytes,
});

/**
 * Streams `file` through a tar parser that checks each header (`filter`, called as the header is read) and hands
 * accepted entries to `onEntry`; stops at the first refusal or at the archive's end mark. Throws the refusal.
 */
const parseChecked = async (file: string, limits: ExtractLimits, tally: Tally, onEntry: (entry: ReadEntry) => void): Promise<void> => {
  let problem: string | undefined;
  let ended = false;
  const parser = new Parser({
    strict: true,
    filter: (_path, entry) => {
      problem ??= entryProblem(entry as ReadEntry, tally, limits);
      return problem === undefined;
    },
    onReadEntry: onEntry,
  });
  parser.on("eof", () => (ended = true));
  const verdict = (): Verdict => (problem ? { go: false, refusal: problem } : { go: !ended });
  let refusal: string | undefined;
  try {
    refusal = await gunzipInto(file, parser, boundsOf(limits), verdict);
  } catch (e) {
    throw refuse(file, `not a readable .tar.gz: ${(e as Error).message}`);
  }
  if (problem) throw refuse(file, problem);
  // A bound of the stream: name the entry being read when it broke.
  if (refusal) throw refuse(file, tally.current ? `${nameOf(tally.current)}: ${refusal}` : refusal);
  if (tally.top === undefined) throw refuse(file, "an empty archive");
};

/**
 * Writes each entry under `dest`: folders made, files created anew (an existing path is an error). A failure is
 * kept in `failures` and its entry's body drained, so that parsing goes on to its end; `pending` settles when all
 * files are written.
 */
const entryWriter = (dest: string, pending: Set<Promise<unknown>>, failures: Error[]) => (entry: ReadEntry) => {
  const target = join(dest, entry.path);
  try {
    mkdirSync(entry.type === "Directory" ? target : dirname(target), { recursive: true });
  } catch (e) {
    failures.push(e as Error);
  }
  if (entry.type === "Directory" || failures.length) {
    entry.resume();
    return;
  }
  const out = createWriteStream(target, { flags: "wx", mode: 0o644 });
  out.on("error", (e) => {
    failures.push(e);
    entry.unpipe(out);
    entry.resume();
  });
  const written: Promise<unknown> = finished(out)
    .catch(() => undefined)
    .then(() => pending.delete(written));
  pending.add(written);
  entry.pipe(out);
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
export const extractBundle = async (file: string, dest: string, limits: ExtractLimits = BUNDLE_LIMITS): Promise<string> => {
  const listing = freshTally();
  await parseChecked(file, limits, listing, (entry) => entry.resume());
  const top = listing.top!;
  const pending = new Set<Promise<unknown>>();
  const failures: Error[] = [];
  // Between the listing and this pass the file may have changed: each entry is checked again.
  const written = await parseChecked(file, limits, freshTally(top), entryWriter(dest, pending, failures)).catch((e: unknown) => e);
  await Promise.all([...pending]);
  if (written instanceof Error) throw written;
  if (failures.length) throw refuse(file, `extraction failed: ${failures[0]!.message}`);
  const odd = oddEntry(dest);
  if (odd) throw refuse(file, `${odd} is not a plain file after extraction`);
  return join(dest, top);
};
