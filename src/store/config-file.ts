import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { ConfigError } from "../errors.ts";

/**
 * The largest config file hexa reads. A run config is a few kB; YAML's parser holds a document's whole tree,
 * so a file of millions of nodes takes gigabytes and minutes before any check could name a field.
 */
export const CONFIG_MAX_BYTES = 1_000_000;

const tooLarge = (path: string, size?: number) =>
  new ConfigError(
    `${path}: ${size === undefined ? "" : `${size.toLocaleString("en")} bytes, `}over the ${CONFIG_MAX_BYTES.toLocaleString("en")}-byte limit of a config file; a run config is a few kB: check that this is the file you meant`,
  );

/** Reads the bytes of `fd`, refusing more than the limit (a pipe or a device has no size to check first). */
const readBounded = (path: string, fd: number): Buffer => {
  const buf = Buffer.alloc(CONFIG_MAX_BYTES + 1);
  let n = 0;
  for (let got = -1; got !== 0 && n < buf.length; n += got) got = readSync(fd, buf, n, buf.length - n, null);
  if (n > CONFIG_MAX_BYTES) throw tooLarge(path);
  return buf.subarray(0, n);
};

/**
 * The text of a config file, refused before it is parsed when it is over CONFIG_MAX_BYTES. `missing` is the
 * message when there is no such file.
 */
export const readConfigText = (path: string, missing = `${path}: no such config file; see configs/ for examples`): string => {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT") throw new ConfigError(missing);
    if (code === "EISDIR") throw new ConfigError(`${path}: a folder, not a config file; name a YAML file, e.g. configs/quickstart.yaml`);
    throw new ConfigError(`${path}: cannot be read (${code ?? (e as Error).message}); check the path and its permissions`);
  }
  try {
    const stat = fstatSync(fd);
    if (stat.isDirectory()) throw new ConfigError(`${path}: a folder, not a config file; name a YAML file, e.g. configs/quickstart.yaml`);
    if (stat.size > CONFIG_MAX_BYTES) throw tooLarge(path, stat.size);
    return readBounded(path, fd).toString("utf8");
  } finally {
    closeSync(fd);
  }
};
