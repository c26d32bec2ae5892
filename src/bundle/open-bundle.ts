import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import type { z } from "zod";
import { ConfigError } from "../errors.ts";
import { BundleCode, CODE_VERSION_FILE, codeDifferences, codeVersionLabel, codeVersionOf, HEXA_ROOT } from "./code-version.ts";
import { Manifest, MANIFEST_FILE, manifestProblems, sha256Hex } from "./manifest.ts";
import { BUNDLE_LIMITS, type ExtractLimits, extractBundle } from "./safe-extract.ts";

/**
 * Opening a bundle for `hexa verify FILE.tar.gz` (docs/guides/publishing.md, "Verifying a bundle"): it is
 * extracted into a temporary folder (safe-extract.ts), its files are checked against MANIFEST.json, and the code
 * that packed it is compared with this checkout, file by file. `strict` refuses a bundle of other code.
 */

export interface CodeVersionReport {
  /** Every source file, the lockfile and the Node version agree. */
  same: boolean;
  packedBy: string;
  here: string;
  /** One line per file (or lockfile, Node version) that differs, at most about forty. */
  differences: string[];
  /** What a reader should know beside the differences (the packing checkout was not the run's own commit). */
  notes: string[];
}

export interface OpenedBundle {
  /** The run folder inside the extraction: an ordinary run directory. */
  runDir: string;
  /** sha256 of MANIFEST.json: the number that names the bundle. */
  manifestHash: string;
  codeVersionReport: CodeVersionReport;
  /** Removes the extraction; call it when done with runDir. */
  cleanup: () => void;
}

export interface OpenOptions {
  strict: boolean;
  /** The checkout the bundle's code is compared with (default: this hexa's). */
  root?: string;
  limits?: ExtractLimits;
}

/** Most bytes of the bundle's JSON files read whole (MANIFEST.json of 200,000 files is some 25 MB). */
const JSON_BYTES = 64 * 1024 ** 2;

const readJson = <S extends z.ZodType>(file: string, path: string, schema: S): z.infer<S> => {
  const name = basename(path);
  if (!existsSync(path)) throw new ConfigError(`${file}: no ${name} in the bundle; it was not made by hexa bundle`);
  const size = statSync(path).size;
  if (size > JSON_BYTES) throw new ConfigError(`${file}: its ${name} has ${size} bytes, over the ${JSON_BYTES} this hexa reads`);
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, "utf8"));
  } catch (e) {
    throw new ConfigError(`${file}: its ${name} is not valid JSON (${(e as Error).message.split("\n")[0]})`);
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new ConfigError(`${file}: its ${name} is not one this hexa reads (${issue.path.join(".") || "(file)"}: ${issue.message})`);
  }
  return parsed.data;
};

/** The bundle's code against this checkout's. */
const codeReport = (code: BundleCode, root: string): CodeVersionReport => {
  const here = codeVersionOf(root);
  const differences = codeDifferences(code.packedBy, here);
  const runCommits = [...new Set(code.run.map((c) => c.commit?.slice(0, 12) ?? `hexa ${c.version}`))];
  return {
    same: differences.length === 0,
    packedBy: codeVersionLabel(code.packedBy),
    here: codeVersionLabel(here),
    differences,
    notes: code.matchesRun
      ? []
      : [`the bundle was packed by a checkout other than the run's own code (${runCommits.join(", ") || "unrecorded"}): its file list is that checkout's`],
  };
};

/** The warning `hexa verify` prints for a bundle of other code: what ran, what is here, and each file that differs. */
export const codeWarning = (file: string, r: CodeVersionReport): string =>
  `warning: ${file} holds a run of other code than this checkout's: it was packed by ${r.packedBy}; this is ${r.here}. What differs in the code that ran:\n${r.differences.map((d) => `  ${d}`).join("\n")}`;

/** Extracts and checks a bundle; the caller must call `cleanup` (also done here if a check fails). */
export const openBundle = async (file: string, o: OpenOptions): Promise<OpenedBundle> => {
  if (!existsSync(file) || !statSync(file).isFile()) throw new ConfigError(`${file}: no such bundle file; give a .tar.gz made by hexa bundle`);
  const dest = mkdtempSync(join(tmpdir(), "hexa-verify-"));
  const cleanup = () => rmSync(dest, { recursive: true, force: true });
  try {
    const runDir = await extractBundle(file, dest, o.limits ?? BUNDLE_LIMITS);
    const manifestPath = join(runDir, MANIFEST_FILE);
    const manifest = readJson(file, manifestPath, Manifest);
    if (manifest.run !== basename(runDir))
      throw new ConfigError(`${file}: its ${MANIFEST_FILE} is of run ${manifest.run}, but its folder is ${basename(runDir)}`);
    const problems = manifestProblems(runDir, manifest);
    if (problems.length) throw new ConfigError(`${file}: the bundle does not match its ${MANIFEST_FILE}: ${problems.join("; ")}`);
    const report = codeReport(readJson(file, join(runDir, CODE_VERSION_FILE), BundleCode), o.root ?? HEXA_ROOT);
    if (o.strict && !report.same)
      throw new ConfigError(
        `${codeWarning(file, report).replace(/^warning: /, "--strict: ")}\ncheck out the commit it was packed at to verify it, or leave out --strict`,
      );
    return { runDir, manifestHash: sha256Hex(readFileSync(manifestPath)), codeVersionReport: report, cleanup };
  } catch (e) {
    cleanup();
    throw e;
  }
};
