import { existsSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { ConfigError } from "../errors.ts";
import { codeWarning, openBundle } from "./open-bundle.ts";

/** What `hexa verify` replays: a run directory as it is, or the run inside a checked bundle. */
export interface VerifyTarget {
  runDir: string;
  /** The bundle's manifest hash, when the target is a bundle. */
  manifestHash?: string;
  /** Lines to print before the replay (a bundle of other code). */
  warnings: string[];
  /** Removes what opening made (a bundle's extraction); a no-op for a run directory. */
  cleanup: () => void;
}

/**
 * `hexa verify RUN_DIR | FILE.tar.gz [--strict]` (docs/guides/publishing.md): a directory is replayed in place; a
 * file is opened as a bundle (MANIFEST first, then the code version: another version is a warning, or refused
 * with `strict`, a ConfigError and exit 2).
 */
export const prepareVerifyTarget = async (pathOrBundle: string, o: { strict: boolean }): Promise<VerifyTarget> => {
  const path = resolve(pathOrBundle);
  if (!existsSync(path)) throw new ConfigError(`${pathOrBundle}: no such run directory or bundle; give runs/<id> or a .tar.gz made by hexa bundle`);
  if (statSync(path).isDirectory()) return { runDir: path, warnings: [], cleanup: () => {} };
  const opened = await openBundle(path, o);
  const r = opened.codeVersionReport;
  return {
    runDir: opened.runDir,
    manifestHash: opened.manifestHash,
    warnings: [...(r.same ? [] : [codeWarning(pathOrBundle, r)]), ...r.notes.map((n) => `note: ${n}`)],
    cleanup: opened.cleanup,
  };
};
