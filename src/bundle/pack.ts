import {
  closeSync,
  constants,
  existsSync,
  fstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join, relative } from "node:path";
import { create as createTar } from "tar";
import { ConfigError } from "../errors.ts";
import { BUNDLE_MARK, MANIFEST_FILE, type Manifest, manifestBytes, sha256Hex } from "./manifest.ts";
import { BUNDLE_EXTRAS, jobFiles, jobFolderNames, namedPolicies, runFiles, trainerJobDir } from "./run-files.ts";
import { secretLeaks, type SecretValue } from "./secrets.ts";

/**
 * `hexa bundle`'s packing (docs/guides/publishing.md): the run's files, the trainer jobs its records name, its
 * response cache and what the caller adds (code version, the config as given) are copied to a staging folder,
 * looked through for secrets, listed with their sha256 in MANIFEST.json, and written as one .tar.gz through a
 * temporary file renamed into place, so `out` is either the whole bundle or untouched.
 */

export interface PackOptions {
  runDir: string;
  runId: string;
  out: string;
  force: boolean;
  withPolicies: boolean;
  createdAt: string;
  /** Files the caller made, by their path in the bundle (under bundle/). */
  extras: readonly { path: string; bytes: Uint8Array }[];
  /** The run's response cache (llm.cacheDir), when it has one. */
  cacheDir?: string;
  /** Files outside the run its family's replay reads (e.g. trainer cache entries), by their path in the bundle (under bundle/). */
  recordedFiles?: readonly { path: string; source: string }[];
  /** `runDir` is a `hexa compare` directory: its runs are packed as runs are (src/bundle/run-files.ts). */
  compare?: boolean;
  secrets: readonly SecretValue[];
}

export interface Packed {
  manifestHash: string;
  files: number;
  bytes: number;
  /** What was left out, one line each (links, policies without --with-policies, jobs no longer on disk). */
  skipped: string[];
}

interface Source {
  path: string;
  read: () => Buffer;
}

/** A file's bytes, refused if it is a link or not a regular file by the time it is opened. */
const readPlain = (path: string): Buffer => {
  const fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    if (!fstatSync(fd).isFile()) throw new ConfigError(`${path}: not a regular file any more; pack the run again once it is not being changed`);
    return readFileSync(fd);
  } finally {
    closeSync(fd);
  }
};

const realOrSelf = (p: string): string => {
  try {
    return realpathSync(p);
  } catch {
    return p;
  }
};

/** What goes into the bundle besides the extras, and what is left out. */
const sourcesOf = (o: PackOptions): { sources: Source[]; skipped: string[] } => {
  const { files, skipped } = runFiles(o.runDir, { compare: o.compare === true });
  const policies = namedPolicies(o.runDir, files);
  const policySet = new Set(policies.map(realOrSelf));
  const isPolicy = (p: string) => !o.withPolicies && policySet.has(realOrSelf(p));
  const sources: Source[] = [];
  let policiesLeft = 0;
  for (const f of files) {
    if (isPolicy(join(o.runDir, f))) policiesLeft++;
    else sources.push({ path: f, read: () => readPlain(join(o.runDir, f)) });
  }
  const jobs = new Map<string, string>();
  const packed = (dir: string) => files.includes(relative(realOrSelf(o.runDir), join(realOrSelf(dir), "request.json")));
  for (const p of policies) {
    const dir = trainerJobDir(p);
    if (dir && !packed(dir)) jobs.set(realOrSelf(dir), dir);
    else if (!dir)
      skipped.push(`${p}: a policy the run's records name, in no trainer job folder on this machine; its job is not packed (the records keep its result)`);
  }
  for (const [dir, name] of jobFolderNames([...jobs.values()]))
    for (const f of jobFiles(dir)) {
      if (isPolicy(join(dir, f))) policiesLeft++;
      else sources.push({ path: `${BUNDLE_EXTRAS}/trainer-jobs/${name}/${f}`, read: () => readPlain(join(dir, f)) });
    }
  if (policiesLeft) skipped.push(`${policiesLeft} trained policy file(s) left out; add --with-policies to pack them`);
  if (o.cacheDir !== undefined) {
    if (existsSync(o.cacheDir))
      for (const f of jobFiles(o.cacheDir).filter((n) => n.endsWith(".json")))
        sources.push({ path: `${BUNDLE_EXTRAS}/llm-cache/${f}`, read: () => readPlain(join(o.cacheDir!, f)) });
    else skipped.push(`${o.cacheDir}: the run's response cache (llm.cacheDir) is not on this machine; packed without it`);
  }
  for (const r of o.recordedFiles ?? []) sources.push({ path: r.path, read: () => readPlain(r.source) });
  return { sources, skipped };
};

/** Copies every source into `stage/<run id>/`, refusing the whole bundle if any holds a secret; returns the manifest's file list. */
const stageFiles = (stage: string, runId: string, sources: readonly Source[], secrets: readonly SecretValue[]): Manifest["files"] => {
  const files: Manifest["files"] = {};
  const leaks: string[] = [];
  for (const s of sources) {
    const bytes = s.read();
    leaks.push(...secretLeaks([{ path: s.path, bytes }], secrets));
    const to = join(stage, runId, s.path);
    mkdirSync(dirname(to), { recursive: true });
    writeFileSync(to, bytes, { flag: "wx" });
    files[s.path] = { sha256: sha256Hex(bytes), bytes: bytes.length };
  }
  if (leaks.length)
    throw new ConfigError(
      `refusing to pack: a secret would enter the bundle (${leaks.slice(0, 5).join("; ")}${leaks.length > 5 ? `; … ${leaks.length - 5} more` : ""}); remove it from those files, or unset the variable if its value is no secret`,
    );
  return files;
};

/** Packs the run into `o.out`; nothing is written there unless the whole bundle is. */
export const packRun = async (o: PackOptions): Promise<Packed> => {
  if (existsSync(o.out) && !o.force) throw new ConfigError(`-o ${o.out}: already exists; add --force to replace it, or name another file`);
  const { sources, skipped } = sourcesOf(o);
  const all = [...sources, ...o.extras.map((e) => ({ path: e.path, read: () => Buffer.from(e.bytes) }))];
  const stage = mkdtempSync(join(tmpdir(), "hexa-bundle-"));
  const temp = join(dirname(o.out), `.${basename(o.out)}.tmp-${process.pid}`);
  try {
    const files = stageFiles(stage, o.runId, all, o.secrets);
    const manifest = manifestBytes({ schemaVersion: 1, kind: BUNDLE_MARK, run: o.runId, createdAt: o.createdAt, files });
    writeFileSync(join(stage, o.runId, MANIFEST_FILE), manifest);
    // portable: no user or group names; one mtime for every entry, so the archive says nothing of this machine.
    await createTar({ gzip: true, file: temp, cwd: stage, portable: true, mtime: new Date(o.createdAt) }, [o.runId]);
    renameSync(temp, o.out);
    return {
      manifestHash: sha256Hex(manifest),
      files: Object.keys(files).length + 1,
      bytes: Object.values(files).reduce((n, f) => n + f.bytes, manifest.length),
      skipped,
    };
  } finally {
    rmSync(temp, { force: true });
    rmSync(stage, { recursive: true, force: true });
  }
};
