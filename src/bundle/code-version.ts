import { execaSync } from "execa";
import { existsSync, lstatSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { filesUnder, sha256Hex } from "./manifest.ts";

/**
 * The code that made (or replays) a run, precise enough to say file by file what differs between two
 * checkouts (docs/guides/publishing.md, "Code version"): commit, a hash of the uncommitted changes, the
 * lockfile's hash, the Node version, and the sha256 of every source file as it is on disk.
 */

/** What decides a run's behaviour: the code trees, the shipped data they read, and the dependency pins. */
const CODE_PATHS = ["src", "agents", "tools", "levels", "bin", "skills", "configs", "scripts", "package.json", "package-lock.json"];
/** Tests run nothing of a run: a changed test is no other code. */
const NOT_CODE = /\.test\.ts$/;

const Sha256 = z.string().regex(/^[0-9a-f]{64}$/);
export const CodeVersionRecord = z.strictObject({
  schemaVersion: z.literal(1),
  version: z.string().describe("hexa's package version"),
  commit: z.string().nullable().describe("git HEAD; null outside a git checkout"),
  uncommittedSha256: Sha256.nullable().describe("sha256 of the diff against the commit and of the untracked source files; null when there are none"),
  lockfileSha256: Sha256.nullable(),
  node: z.string(),
  files: z.record(z.string(), Sha256).describe("every source file (tracked, or untracked and not ignored) and its sha256, as on disk"),
});
export type CodeVersionRecord = z.infer<typeof CodeVersionRecord>;

const git = (root: string, args: readonly string[]): Buffer | undefined => {
  // Bytes as git wrote them (a diff is hashed): no decoding, no final newline stripped.
  const r = execaSync("git", args, {
    cwd: root,
    stdin: "ignore",
    stderr: "ignore",
    timeout: 20_000,
    maxBuffer: 1 << 28,
    encoding: "buffer",
    stripFinalNewline: false,
    reject: false,
  });
  return r.failed ? undefined : Buffer.from(r.stdout);
};

const nulList = (out: Buffer | undefined): string[] | undefined =>
  out === undefined
    ? undefined
    : out
        .toString("utf8")
        .split("\0")
        .filter((p) => p !== "");

const isPlainFile = (path: string): boolean => lstatSync(path, { throwIfNoEntry: false })?.isFile() === true;

/** The source files: git's list when `root` is a checkout (tracked and untracked-not-ignored), else every file under CODE_PATHS. */
const sourceFiles = (root: string): string[] => {
  const listed = nulList(git(root, ["ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", ...CODE_PATHS]));
  const all =
    listed ??
    CODE_PATHS.flatMap((p) => (existsSync(join(root, p)) ? (isPlainFile(join(root, p)) ? [p] : filesUnder(join(root, p), "").map((f) => `${p}/${f}`)) : []));
  // The lockfile has its own hash (lockfileSha256).
  return [...new Set(all)].filter((p) => p !== "package-lock.json" && !NOT_CODE.test(p) && isPlainFile(join(root, p))).sort();
};

/** sha256 of `git diff HEAD` over the code paths plus each untracked source file's path and bytes; null when clean. */
const uncommittedHash = (root: string): string | null => {
  const diff = git(root, ["diff", "HEAD", "--binary", "--", ...CODE_PATHS]);
  const untracked = (nulList(git(root, ["ls-files", "-z", "--others", "--exclude-standard", "--", ...CODE_PATHS])) ?? []).filter((p) =>
    isPlainFile(join(root, p)),
  );
  if ((diff === undefined || diff.length === 0) && untracked.length === 0) return null;
  const parts = [diff ?? Buffer.alloc(0), ...untracked.sort().flatMap((p) => [Buffer.from(`\0${p}\0`), readFileSync(join(root, p))])];
  return sha256Hex(Buffer.concat(parts));
};

/** The hexa checkout (or installed package) this module belongs to. */
export const HEXA_ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** The code version of the hexa checkout at `root`. */
export const codeVersionOf = (root: string): CodeVersionRecord => {
  const version = (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string }).version;
  const commit = git(root, ["rev-parse", "HEAD"])?.toString().trim() || null;
  const lock = join(root, "package-lock.json");
  return {
    schemaVersion: 1,
    version,
    commit,
    uncommittedSha256: commit ? uncommittedHash(root) : null,
    lockfileSha256: existsSync(lock) ? sha256Hex(readFileSync(lock)) : null,
    node: process.version,
    files: Object.fromEntries(sourceFiles(root).map((p) => [p, sha256Hex(readFileSync(join(root, p)))])),
  };
};

/** How much of a per-file list a message shows before "… and N more". */
const LISTED = 40;

/**
 * What differs in the code between `ran` (the code that made the run) and `here` (this checkout), one line per
 * file, lockfile or Node version; empty when the code is the same. A commit that differs while every file
 * agrees (a change to docs or tests only) is no difference.
 */
export const codeDifferences = (ran: CodeVersionRecord, here: CodeVersionRecord): string[] => {
  const ranPaths = Object.keys(ran.files).sort();
  // Changed files first: when the list is cut, they are what a reader most needs.
  const lines = [
    ...ranPaths.filter((p) => here.files[p] !== undefined && here.files[p] !== ran.files[p]).map((p) => `${p}: changed`),
    ...ranPaths.filter((p) => here.files[p] === undefined).map((p) => `${p}: only in the code that ran`),
    ...Object.keys(here.files)
      .sort()
      .filter((p) => ran.files[p] === undefined)
      .map((p) => `${p}: only in this checkout`),
  ];
  if (ran.lockfileSha256 !== here.lockfileSha256) lines.unshift("package-lock.json: other dependency versions");
  if (ran.node !== here.node) lines.unshift(`Node ${ran.node} ran it; this is Node ${here.node}`);
  return lines.length > LISTED + 1 ? [...lines.slice(0, LISTED), `… and ${lines.length - LISTED} more`] : lines;
};

/** A code version in one line: commit (with "+ uncommitted changes") or, outside git, the package version. */
export const codeVersionLabel = (c: Pick<CodeVersionRecord, "version" | "commit" | "uncommittedSha256">): string =>
  c.commit
    ? `hexa ${c.version} at commit ${c.commit.slice(0, 12)}${c.uncommittedSha256 ? ` + uncommitted changes (sha256 ${c.uncommittedSha256.slice(0, 12)}…)` : ""}`
    : `hexa ${c.version} (no git commit)`;

/** A bundle's bundle/code-version.json: the checkout that packed it, and the code the run's own records name. */
export const CODE_VERSION_FILE = "bundle/code-version.json";
export const BundleCode = z.strictObject({
  schemaVersion: z.literal(1),
  packedBy: CodeVersionRecord,
  run: z.array(z.object({ version: z.string(), commit: z.string().nullable() })).describe("run.json's code and every writers.jsonl line's, in order"),
  matchesRun: z
    .boolean()
    .describe("every process that wrote the run was at packedBy's commit (a run records no uncommitted changes, so they cannot be compared)"),
});
export type BundleCode = z.infer<typeof BundleCode>;
