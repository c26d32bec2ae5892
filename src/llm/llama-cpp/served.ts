import { createHash } from "node:crypto";
import { createReadStream } from "node:fs";
import { pipeline } from "node:stream/promises";
import { z } from "zod";
import type { ModelFile } from "./model-file.ts";

/** What a GGUF file is, from its metadata and bytes: two runs on files with another sha256 ran another model. */
export const GgufServed = z.object({
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  bytes: z.number().int().min(0),
  architecture: z.string(),
  name: z.string().nullable(),
  quantisation: z.string(),
  parameters: z.number().int().min(0),
  trainedContext: z.number().int().nullable(),
});
export type GgufServed = z.infer<typeof GgufServed>;

/**
 * One role's entry in served-models.json (src/app/preflight.ts `ServedModels`) for an embedded model: `requested`
 * is the configured path, `served` the model's own name, `fingerprint` its file's hash, so that the drift check
 * that warns when a server's fingerprint changes warns when the file does; `gguf` says what the file is.
 */
export const EmbeddedServedRole = z.object({
  requested: z.string(),
  served: z.string().nullable(),
  fingerprint: z.string(),
  checkedAt: z.string(),
  gguf: GgufServed,
});
export type EmbeddedServedRole = z.infer<typeof EmbeddedServedRole>;

/** An embedded model's name in answers, logs and prices: its file's hash, so a swapped file is another model. */
export const ggufIdentity = (sha256: string): string => `gguf:sha256:${sha256}`;

/** A model name that is an embedded model's file hash: it runs in this process and costs nothing. */
export const isGgufIdentity = (model: string): boolean => /^gguf:sha256:[0-9a-f]{64}$/.test(model);

/** The file's sha256, read as a stream (a model is gigabytes). */
const sha256OfFile = async (path: string): Promise<string> => {
  const hash = createHash("sha256");
  await pipeline(createReadStream(path), hash);
  return hash.digest("hex");
};

/** What the file is: its hash and what its metadata says. */
export const ggufServedOf = async (file: ModelFile): Promise<GgufServed> => {
  // model-file.ts loads node-llama-cpp (and its process signal handlers): only a command that reads a GGUF loads it.
  const { parameterCountOf, quantisationOf, trainedContextOf } = await import("./model-file.ts");
  const general = file.info.metadata.general;
  return {
    sha256: await sha256OfFile(file.realPath),
    bytes: file.bytes,
    architecture: general.architecture,
    name: typeof general.name === "string" ? general.name : null,
    quantisation: quantisationOf(file.info),
    parameters: parameterCountOf(file.info),
    trainedContext: trainedContextOf(file.info),
  };
};

/** The served-models entry of a role whose config names `requested`. */
export const embeddedServedRole = (requested: string, gguf: GgufServed, checkedAt: Date): EmbeddedServedRole => ({
  requested,
  served: gguf.name,
  fingerprint: `sha256:${gguf.sha256}`,
  checkedAt: checkedAt.toISOString(),
  gguf,
});
