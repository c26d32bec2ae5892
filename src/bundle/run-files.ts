import { existsSync, lstatSync, readdirSync, readFileSync, readlinkSync, realpathSync } from "node:fs";
import { basename, dirname, isAbsolute, join, relative, resolve } from "node:path";
import { ConfigError } from "../errors.ts";
import { HELD_DIR, HeldEpisodes } from "../store/held-episodes.ts";
import { MANIFEST_FILE } from "./manifest.ts";

/**
 * Which files of a run directory go into its bundle (docs/guides/publishing.md, "What a bundle holds"): every
 * regular file, less what a process or a report made of them (the lock, temporary files, report.html, the
 * run's bundle and verification notes). A link is never followed: it is named and left out.
 */

/** Made from the run, not part of it: `hexa inspect` and `hexa verify` make them again. */
const DERIVED = new Set(["run.lock", "report.html", "bundle.json", "verification.json"]);
/** A temporary file of an atomic write (src/store/jsonl.ts, the response cache). */
const TEMP = /\.tmp-[\w-]+$/;
/** Where the bundle puts what it adds to the run's own files; a run directory never has it. */
export const BUNDLE_EXTRAS = "bundle";

export interface RunFiles {
  /** Paths relative to the run directory, `/`-separated, sorted. */
  files: string[];
  /** One line per entry left out that a reader should know of (a link, a device). */
  skipped: string[];
}

const isInside = (root: string, path: string): boolean => {
  const rel = relative(root, path);
  return rel === "" || (!rel.startsWith("..") && !isAbsolute(rel));
};

const linkNote = (root: string, path: string, rel: string): string => {
  const target = readlinkSync(path);
  let where = "pointing at nothing";
  try {
    where = isInside(root, realpathSync(path)) ? "inside the run directory" : "pointing outside the run directory";
  } catch {
    // A dangling link: `where` says so.
  }
  return `${rel}: a symbolic link to ${target} (${where}); not packed, a bundle holds files only`;
};

/**
 * A run killed while finished episodes waited for their turn keeps them in held/ (docs/ARCHITECTURE.md §6) until a
 * resume writes them: such a run is refused, not packed with work its records do not hold yet.
 */
const refuseHeld = (runDir: string): void => {
  const held = new HeldEpisodes(join(runDir, HELD_DIR)).count();
  if (held > 0)
    throw new ConfigError(
      `${join(runDir, HELD_DIR)}: ${held} finished episode(s) not yet written to episodes.jsonl (the run was stopped before it wrote them); resume it (hexa run --resume ${runDir}) so they are written, then bundle it`,
    );
};

/** Where a `hexa compare` directory keeps its runs (one run directory each); `.`-names there are the grid's shared caches. */
export const COMPARE_RUNS = "runs";

/** Made from a compare grid's runs, not part of them: `hexa compare` makes them again. */
const COMPARE_DERIVED = new Set(["compare.lock", "report.html", "bundle.json", "verification.json"]);

/** Whether a folder holds a run directory: the bundle's top, or (in a compare directory) one of its runs. */
const runRootOf = (prefix: string, compare: boolean): boolean => (compare ? new RegExp(`^${COMPARE_RUNS}/[^/]+$`).test(prefix) : prefix === "");

/**
 * The files to pack of a run directory, or (`compare`) of a `hexa compare` directory, whose runs under runs/ are
 * each packed as a run is; the trainer caches and jobs the grid's runs share there (runs/.trainer-cache …) are
 * not packed, since each run keeps the entries it used. Returns what was left out and why.
 */
export const runFiles = (runDir: string, o: { compare?: boolean } = {}): RunFiles => {
  const root = realpathSync(runDir);
  const compare = o.compare === true;
  for (const reserved of [MANIFEST_FILE, BUNDLE_EXTRAS])
    if (existsSync(join(root, reserved)))
      throw new ConfigError(
        `${join(runDir, reserved)}: a name a bundle keeps for itself; a ${compare ? "compare" : "run"} directory made by hexa has none, so move it out of it`,
      );
  const files: string[] = [];
  const skipped: string[] = [];
  const derived = (prefix: string, name: string): boolean =>
    (runRootOf(prefix, compare) && DERIVED.has(name)) || (compare && prefix === "" && COMPARE_DERIVED.has(name));
  const walk = (prefix: string): void => {
    if (runRootOf(prefix, compare)) refuseHeld(join(root, prefix));
    for (const e of readdirSync(join(root, prefix), { withFileTypes: true })) {
      const rel = prefix ? `${prefix}/${e.name}` : e.name;
      const path = join(root, rel);
      if (compare && prefix === COMPARE_RUNS && e.name.startsWith(".")) continue;
      if (e.isSymbolicLink()) skipped.push(linkNote(root, path, rel));
      else if (e.isDirectory()) walk(rel);
      else if (!e.isFile()) skipped.push(`${rel}: not a regular file; not packed`);
      else if (!derived(prefix, e.name) && !TEMP.test(e.name)) files.push(rel);
    }
  };
  walk("");
  return { files: files.sort(), skipped };
};

const policyPaths = (value: unknown, out: Set<string>): void => {
  if (Array.isArray(value)) for (const v of value) policyPaths(v, out);
  else if (value && typeof value === "object")
    for (const [k, v] of Object.entries(value)) {
      if (k === "policy" && typeof v === "string" && v.endsWith(".json")) out.add(v);
      else policyPaths(v, out);
    }
};

const jsonValues = (text: string): unknown[] =>
  text.split("\n").flatMap((line) => {
    try {
      return line.trim() ? [JSON.parse(line) as unknown] : [];
    } catch {
      return [];
    }
  });

/**
 * The policy files the run's records name: a trainer's result names its final policy by path
 * (docs/trainer-protocol.md, the `result` message), and records keep that result. Whole-file JSON is read as
 * one value; JSONL line by line.
 */
export const namedPolicies = (runDir: string, files: readonly string[]): string[] => {
  const found = new Set<string>();
  for (const f of files.filter((p) => /\.jsonl?$/.test(p))) {
    const text = readFileSync(join(runDir, f), "utf8");
    for (const v of f.endsWith(".jsonl") ? jsonValues(text) : jsonValues(text.replace(/\n/g, " "))) policyPaths(v, found);
  }
  return [...found].sort();
};

/** A trainer job's folder (docs/trainer-protocol.md, `jobDir`): the host's request.json there names it as its own. */
export const trainerJobDir = (policy: string): string | undefined => {
  const dir = dirname(resolve(policy));
  const request = join(dir, "request.json");
  if (!lstatSync(request, { throwIfNoEntry: false })?.isFile()) return undefined;
  try {
    const named = (JSON.parse(readFileSync(request, "utf8")) as { jobDir?: unknown }).jobDir;
    return typeof named === "string" && realpathSync(named) === realpathSync(dir) ? dir : undefined;
  } catch {
    return undefined;
  }
};

/** The regular files at the top of a job folder (links and sub-folders are not the job's record). */
export const jobFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isFile() && !TEMP.test(e.name))
    .map((e) => e.name)
    .sort();

/** A unique folder name per job under bundle/trainer-jobs/. */
export const jobFolderNames = (dirs: readonly string[]): Map<string, string> => {
  const taken = new Map<string, number>();
  return new Map(
    dirs.map((d) => {
      const name = basename(d);
      const n = (taken.get(name) ?? 0) + 1;
      taken.set(name, n);
      return [d, n === 1 ? name : `${name}-${n}`];
    }),
  );
};
