import { closeSync, openSync, readSync, realpathSync, statSync } from "node:fs";
import { extname, resolve } from "node:path";
import { GgufFileType, readGgufFileInfo, type GgufFileInfo } from "node-llama-cpp";
import { ConfigError } from "../../errors.ts";

/**
 * The checks a user's GGUF file passes before anything of it is loaded (docs/security.md: a file a user points at
 * is validated where it enters). The header's counts and the metadata's size are bounded, and nothing the metadata
 * names is followed: a split model's other parts are refused, not opened.
 */

/** Bounds far above any real model's (a 150 k-token vocabulary with its merges is ~10 MiB of metadata). */
const GGUF_LIMITS = {
  metadataKeys: 10_000,
  tensors: 100_000,
  metadataBytes: 128 * 2 ** 20,
  chatTemplateChars: 256 * 2 ** 10,
} as const;

const MAGIC = "GGUF";

/** A checked model file: where it really is, and what its header says. */
export interface ModelFile {
  /** The path with links resolved: the key under which one loaded model is shared. */
  realPath: string;
  bytes: number;
  info: GgufFileInfo;
}

const headerProblem = (path: string): string | undefined => {
  const fd = openSync(path, "r");
  try {
    const head = Buffer.alloc(24);
    const read = readSync(fd, head, 0, 24, 0);
    if (read < 24 || head.toString("latin1", 0, 4) !== MAGIC) return "not a GGUF file (no GGUF magic at its start)";
    const version = head.readUInt32LE(4);
    if (version !== 2 && version !== 3) return `GGUF version ${version} is not one node-llama-cpp reads (2 or 3)`;
    const tensors = head.readBigUInt64LE(8);
    const keys = head.readBigUInt64LE(16);
    if (tensors > BigInt(GGUF_LIMITS.tensors)) return `its header claims ${tensors} tensors (at most ${GGUF_LIMITS.tensors})`;
    if (keys > BigInt(GGUF_LIMITS.metadataKeys)) return `its header claims ${keys} metadata keys (at most ${GGUF_LIMITS.metadataKeys})`;
    return undefined;
  } finally {
    closeSync(fd);
  }
};

const infoProblem = (info: GgufFileInfo): string | undefined => {
  if (info.metadataSize > GGUF_LIMITS.metadataBytes) return `its metadata is ${info.metadataSize} bytes (at most ${GGUF_LIMITS.metadataBytes})`;
  const split = (info.metadata as { split?: { count?: number } }).split?.count ?? 1;
  if (split > 1) return `it is part of a model split into ${split} files; merge them into one (llama-gguf-split --merge)`;
  const template = info.metadata.tokenizer?.chat_template;
  if (typeof template === "string" && template.length > GGUF_LIMITS.chatTemplateChars)
    return `its chat template is ${template.length} characters (at most ${GGUF_LIMITS.chatTemplateChars})`;
  if (typeof info.metadata.general?.architecture !== "string") return "its metadata names no general.architecture";
  return undefined;
};

/**
 * Checks the file that `where` (e.g. "llm.actor.model") names and reads its metadata, or throws a ConfigError
 * naming the field, the path and what is wrong.
 */
export const openModelFile = async (path: string, where: string): Promise<ModelFile> => {
  const refuse = (what: string): never => {
    throw new ConfigError(`${where}: ${what} (got ${JSON.stringify(path)}); point it at a model's .gguf file`);
  };
  if (extname(path).toLowerCase() !== ".gguf") refuse("not a .gguf file");
  let realPath = "";
  let bytes = 0;
  try {
    realPath = realpathSync(resolve(path));
    const stat = statSync(realPath);
    if (!stat.isFile()) refuse("not a regular file");
    bytes = stat.size;
  } catch (e) {
    if (e instanceof ConfigError) throw e;
    refuse(`cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  const header = headerProblem(realPath);
  if (header) refuse(header);
  let info: GgufFileInfo | undefined;
  try {
    info = await readGgufFileInfo(realPath, { sourceType: "filesystem", spliceSplitFiles: false, logWarnings: false });
  } catch (e) {
    refuse(`its GGUF metadata is damaged (${(e as Error).message.slice(0, 200)})`);
  }
  const problem = infoProblem(info!);
  if (problem) refuse(problem);
  return { realPath, bytes, info: info! };
};

/** The quantisation the file declares (general.file_type), e.g. "Q4_K_M"; "unknown" when it declares none. */
export const quantisationOf = (info: GgufFileInfo): string => {
  const type = info.metadata.general?.file_type;
  const name = type === undefined ? undefined : GgufFileType[type];
  return name ? name.replace(/^(MOSTLY|ALL)_/, "") : "unknown";
};

/** Parameters: the elements of every tensor. */
export const parameterCountOf = (info: GgufFileInfo): number =>
  (info.tensorInfo ?? []).reduce((n, t) => n + t.dimensions.reduce<number>((p, d) => p * Number(d), 1), 0);

/** The context length the model was trained with, from `<architecture>.context_length`. */
export const trainedContextOf = (info: GgufFileInfo): number | null => {
  const n = (info.architectureMetadata as { context_length?: number }).context_length;
  return typeof n === "number" ? n : null;
};
