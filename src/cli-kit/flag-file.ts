import { closeSync, existsSync, fstatSync, openSync, readSync } from "node:fs";
import { ConfigError } from "../errors.ts";

/**
 * The text of a file a flag names (a file a user points at, docs/security.md): refused when missing, not a
 * regular file, or over `maxBytes`, each naming the flag; never read past the size it had when checked.
 * `tooBig` ends the size refusal with what such a file should hold (default: "not a FLAG file").
 */
export const readFlagFile = (flag: string, path: string, maxBytes: number, tooBig = `not a ${flag} file`): string => {
  if (!existsSync(path)) throw new ConfigError(`--${flag}: ${path}: no such file`);
  const fd = openSync(path, "r");
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new ConfigError(`--${flag}: ${path} is not a file`);
    if (st.size > maxBytes) throw new ConfigError(`--${flag}: ${path} is ${st.size} bytes, more than ${maxBytes}; ${tooBig}`);
    const buf = Buffer.alloc(st.size);
    const read = readSync(fd, buf, 0, st.size, 0);
    return buf.subarray(0, read).toString("utf8");
  } finally {
    closeSync(fd);
  }
};
