import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { parse as parseYaml, YAMLParseError } from "yaml";
import { ConfigError } from "../errors.ts";

/**
 * The largest config file hexa reads. A run config is a few kB; YAML's parser holds a document's whole tree,
 * so a file of millions of nodes takes gigabytes and minutes before any check could name a field.
 */
export const CONFIG_MAX_BYTES = 1_000_000;

/** How a YAML file is read: what its errors call it, the message for a missing file, and the size limit with its reason. */
export interface YamlFileOptions {
  /** What the errors call the file (default its path), e.g. `--config worker.yaml`. */
  label?: string;
  /** The message when there is no such file. */
  missing?: string;
  maxBytes?: number;
  /** Why the limit holds, after the limit in its error (default: a run config is a few kB). */
  sizeHint?: string;
}

const RUN_CONFIG_SIZE_HINT = "a run config is a few kB: check that this is the file you meant";

const tooLarge = (label: string, maxBytes: number, hint: string, size?: number) =>
  new ConfigError(
    `${label}: ${size === undefined ? "" : `${size.toLocaleString("en")} bytes, `}over the ${maxBytes.toLocaleString("en")}-byte limit of a config file; ${hint}`,
  );

/** Reads the bytes of `fd`, refusing more than the limit (a pipe or a device has no size to check first). */
const readBounded = (fd: number, maxBytes: number, refuse: () => ConfigError): Buffer => {
  const buf = Buffer.alloc(maxBytes + 1);
  let n = 0;
  for (let got = -1; got !== 0 && n < buf.length; n += got) got = readSync(fd, buf, n, buf.length - n, null);
  if (n > maxBytes) throw refuse();
  return buf.subarray(0, n);
};

const openOrRefuse = (path: string, label: string, missing: string): number => {
  try {
    return openSync(path, "r");
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT") throw new ConfigError(missing);
    if (code === "EISDIR") throw new ConfigError(`${label}: a folder, not a config file; name a YAML file, e.g. configs/quickstart.yaml`);
    throw new ConfigError(`${label}: cannot be read (${code ?? (e as Error).message}); check the path and its permissions`);
  }
};

/**
 * The text of a config file, refused before it is parsed when it is over the limit (CONFIG_MAX_BYTES unless
 * `o.maxBytes`). `missing` is the message when there is no such file.
 */
export const readConfigText = (path: string, missing?: string, o: YamlFileOptions = {}): string => {
  const label = o.label ?? path;
  const maxBytes = o.maxBytes ?? CONFIG_MAX_BYTES;
  const hint = o.sizeHint ?? RUN_CONFIG_SIZE_HINT;
  const fd = openOrRefuse(path, label, missing ?? o.missing ?? `${label}: no such config file; see configs/ for examples`);
  try {
    const stat = fstatSync(fd);
    if (stat.isDirectory()) throw new ConfigError(`${label}: a folder, not a config file; name a YAML file, e.g. configs/quickstart.yaml`);
    if (stat.size > maxBytes) throw tooLarge(label, maxBytes, hint, stat.size);
    return readBounded(fd, maxBytes, () => tooLarge(label, maxBytes, hint)).toString("utf8");
  } finally {
    closeSync(fd);
  }
};

/** The line a parse error points at, cut to a length an error message can show. */
const lineAt = (text: string, line: number): string => {
  const shown = text.split("\n")[line - 1] ?? "";
  return shown.length > 80 ? `${shown.slice(0, 77)}...` : shown;
};

/**
 * YAML text parsed; an empty document is `null`. A syntax error is a ConfigError naming `source`, the line and
 * column, the parser's reason and the line itself: `x.yaml: not valid YAML at line 2, column 1: <reason> (got "<line>")`.
 */
export const parseYamlText = (text: string, source: string): unknown => {
  try {
    return parseYaml(text);
  } catch (e) {
    // Not only YAMLParseError: the parser's alias-count guard throws a ReferenceError, and that file is refused too.
    const reason = (e as Error).message.split("\n")[0]!.replace(/ at line \d+, column \d+:?$/, "");
    const at = e instanceof YAMLParseError ? e.linePos?.[0] : undefined;
    const where = at ? ` at line ${at.line}, column ${at.col}: ${reason} (got ${JSON.stringify(lineAt(text, at.line))})` : `: ${reason}`;
    throw new ConfigError(`${source}: not valid YAML${where}; fix that line, or compare with a file under configs/`);
  }
};

/** A YAML file read (readConfigText's limit and refusals) and parsed; errors name the file (or `o.label`). */
export const readYamlFile = (path: string, o: YamlFileOptions = {}): unknown => parseYamlText(readConfigText(path, undefined, o), o.label ?? path);

/** A YAML file that must hold a mapping of keys (a run config): an empty file is `{}`, a list or a scalar is refused. */
export const readYamlMapping = (path: string, o: YamlFileOptions = {}): Record<string, unknown> => {
  const raw = readYamlFile(path, o) ?? {};
  if (typeof raw !== "object" || Array.isArray(raw))
    throw new ConfigError(`${o.label ?? path}: not a YAML mapping of keys (got ${Array.isArray(raw) ? "a list" : typeof raw}); see configs/ for examples`);
  return raw as Record<string, unknown>;
};
