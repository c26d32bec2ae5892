import { accessSync, constants, existsSync, statSync, writeFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { ConfigError } from "../errors.ts";

/** Writes an output file named by a flag; a failure is the user's to fix, so it names the flag and the reason. */
export const writeOutput = (flag: string, file: string, data: Uint8Array | string): void => {
  try {
    writeFileSync(file, data);
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    throw new ConfigError(`--${flag}: cannot write ${file} (${err.code ?? err.message}); check that its folder exists and is writable`);
  }
};

/**
 * Refuses an output path that cannot be written, before the work that fills it: `hexa episode --out` checks
 * here before a (paid) episode is played, so a typo in the folder never loses its trajectory.
 */
export const assertWritable = (flag: string, file: string): void => {
  const path = resolve(file);
  const folder = dirname(path);
  const refuse = (why: string) => new ConfigError(`--${flag}: cannot write ${file} (${why}); name a file in an existing, writable folder`);
  if (!existsSync(folder)) throw refuse(`no folder ${folder}`);
  if (!statSync(folder).isDirectory()) throw refuse(`${folder} is not a folder`);
  if (existsSync(path) && statSync(path).isDirectory()) throw refuse("it is a folder");
  try {
    accessSync(existsSync(path) ? path : folder, constants.W_OK);
  } catch (e) {
    throw refuse((e as NodeJS.ErrnoException).code ?? "not writable");
  }
};

const WHY: Record<string, string> = {
  ENOSPC: "no space left on the device",
  EDQUOT: "over the disk quota",
  EROFS: "a read-only file system",
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  ENOTDIR: "a part of the path is a file, not a folder",
  EISDIR: "it is a folder, not a file",
  ENOENT: "no such file or folder",
  EEXIST: "it already exists",
  ENAMETOOLONG: "the name is too long",
  EMFILE: "too many open files",
};

/**
 * A file-system failure (ENOSPC, EROFS, EACCES, …) as the user's to fix: `<path>: <why> (<code>); <fix>`. Anything
 * else is returned unchanged, so a hexa bug still shows its stack.
 */
export const asUserError = (e: unknown, fix: string): unknown => {
  const err = e as NodeJS.ErrnoException;
  if (!(e instanceof Error) || typeof err.code !== "string" || typeof err.syscall !== "string") return e;
  const where = err.path ?? err.syscall;
  return new ConfigError(`${where}: cannot ${err.syscall} (${WHY[err.code] ?? err.code}, ${err.code}); ${fix}`);
};
