import { randomBytes } from "node:crypto";
import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeFileSync } from "node:fs";

/** The name of a temporary file writeAtomic left (`NAME.tmp-<pid>-<hex>`; older hexa wrote `NAME.tmp-<pid>`): a process killed between its write and its rename. */
export const ATOMIC_TEMP = /\.tmp-\d+(-[0-9a-f]+)?$/;

/**
 * Writes `text` to `path` so that a reader, or the file after a crash, holds the old content or the new one, never
 * a part: a temporary file of this writer's own (pid and a random suffix, so processes and threads sharing a folder
 * never write through one file), flushed to disk, then renamed over `path`. A failed write leaves no temporary file.
 */
export const writeAtomic = (path: string, text: string | Uint8Array): void => {
  const tmp = `${path}.tmp-${process.pid}-${randomBytes(6).toString("hex")}`;
  try {
    writeFileSync(tmp, text);
    const fd = openSync(tmp, "r+");
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, path);
  } catch (e) {
    rmSync(tmp, { force: true });
    throw e;
  }
};
