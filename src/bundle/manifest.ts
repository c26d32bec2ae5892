import { createHash } from "node:crypto";
import { closeSync, openSync, readdirSync, readSync, statSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { canonicalJson } from "../util/canonical-json.ts";

/**
 * A bundle's MANIFEST.json (docs/guides/publishing.md, "What a bundle holds"): the sha256 and size of every other
 * file of the bundle, by its path under the bundle's run folder. Its own sha256 is the bundle's manifest hash,
 * the one number a paper cites: it pins every byte of every file.
 */
export const MANIFEST_FILE = "MANIFEST.json";
export const BUNDLE_MARK = "hexa-bundle";

const Sha256 = z.string().regex(/^[0-9a-f]{64}$/, "a sha256 in hex");
const ManifestEntry = z.strictObject({ sha256: Sha256, bytes: z.number().int().min(0) });
export const Manifest = z.strictObject({
  schemaVersion: z.literal(1),
  kind: z.literal(BUNDLE_MARK),
  run: z.string().describe("the run's id: the bundle's top folder"),
  createdAt: z.string(),
  files: z.record(z.string(), ManifestEntry).describe("every file of the bundle but the manifest, by its path under the run folder"),
});
export type Manifest = z.infer<typeof Manifest>;

export const sha256Hex = (bytes: Uint8Array | string): string => createHash("sha256").update(bytes).digest("hex");

/** The manifest as written: key-sorted JSON, so the same files always give the same bytes and hash. */
export const manifestBytes = (m: Manifest): Buffer => Buffer.from(`${canonicalJson(m)}\n`);

/** Every regular file under `root`, as `/`-separated paths relative to it, sorted (a link or a device is no file). */
export const filesUnder = (root: string, prefix = ""): string[] =>
  readdirSync(join(root, prefix), { withFileTypes: true })
    .flatMap((e) => {
      const rel = prefix ? `${prefix}/${e.name}` : e.name;
      if (e.isDirectory()) return filesUnder(root, rel);
      return e.isFile() ? [rel] : [];
    })
    .sort();

const READ_BYTES = 1024 ** 2;

/** A file's sha256 and size, read a piece at a time: a bundle's files may be large. */
const digestOf = (path: string): { sha256: string; bytes: number } => {
  const hash = createHash("sha256");
  const piece = Buffer.alloc(READ_BYTES);
  const fd = openSync(path, "r");
  let bytes = 0;
  try {
    for (let n = readSync(fd, piece); n > 0; n = readSync(fd, piece)) {
      hash.update(piece.subarray(0, n));
      bytes += n;
    }
  } finally {
    closeSync(fd);
  }
  return { sha256: hash.digest("hex"), bytes };
};

/** The manifest entries of `paths` (relative to `root`), read from disk now. */
export const manifestFiles = (root: string, paths: readonly string[]): Manifest["files"] => Object.fromEntries(paths.map((p) => [p, digestOf(join(root, p))]));

/** How one listed file differs from its entry (the size first: a file of another size is not read), or undefined when it agrees. */
const entryProblem = (root: string, p: string, want: Manifest["files"][string]): string | undefined => {
  const size = statSync(join(root, p)).size;
  if (size !== want.bytes) return `${p}: ${size} bytes, but ${MANIFEST_FILE} says ${want.bytes} bytes`;
  const got = digestOf(join(root, p));
  if (got.sha256 !== want.sha256)
    return `${p}: changed since packing (sha256 ${got.sha256.slice(0, 12)}…, ${got.bytes} bytes; ${MANIFEST_FILE} says ${want.sha256.slice(0, 12)}…, ${want.bytes} bytes)`;
  return undefined;
};

/** What differs between a manifest and the files under `root` (presence, size, sha256): each problem names its file; empty when they agree. */
export const manifestProblems = (root: string, manifest: Manifest): string[] => {
  const present = filesUnder(root).filter((p) => p !== MANIFEST_FILE);
  const listed = new Set(Object.keys(manifest.files));
  const problems = present.filter((p) => !listed.has(p)).map((p) => `${p}: in the bundle but not in its ${MANIFEST_FILE} (a file added after packing)`);
  const here = new Set(present);
  for (const [p, want] of Object.entries(manifest.files)) {
    const problem = here.has(p) ? entryProblem(root, p, want) : `${p}: listed in ${MANIFEST_FILE} but missing from the bundle`;
    if (problem) problems.push(problem);
  }
  return problems.sort();
};
