import { z } from "zod";

/**
 * One role's embedded model: a GGUF file run in this process by node-llama-cpp (docs/guides/model-servers.md,
 * "No server: an embedded model"). Every default here (docs/spec/style.md §8).
 */
/** The longest context any GGUF model declares today is about a million tokens; more only allocates memory. */
const MAX_CONTEXT_TOKENS = 1 << 20;
/** Each conversation holds its own contextSize tokens: a bound keeps a typo from allocating hundreds of them. */
const MAX_PARALLEL = 64;

export const LlamaCppModelConfig = z.strictObject({
  provider: z.literal("llama-cpp").describe("run the model in this process from a GGUF file, no server"),
  model: z.string().min(1).describe("path to the model's .gguf file (a path relative to the working directory)"),
  contextSize: z
    .number()
    .int()
    .min(64)
    .max(MAX_CONTEXT_TOKENS)
    .default(8192)
    .describe("tokens of context per conversation; each concurrent conversation holds this many in memory"),
  gpu: z
    .union([z.literal("auto"), z.literal(false)])
    .default("auto")
    .describe("auto: CUDA, Vulkan or Metal where node-llama-cpp finds one, else the CPU; false: the CPU only"),
  gpuLayers: z.number().int().min(0).optional().describe("layers offloaded to the GPU; unset: as many as fit (node-llama-cpp's auto); 0 keeps them on the CPU"),
  threads: z.number().int().min(1).optional().describe("CPU threads for evaluation; unset: node-llama-cpp's choice (the cores useful for math)"),
  temperature: z.number().min(0).max(2).nullable().default(1).describe("sampling temperature; 0 or null: greedy"),
  topP: z.number().gt(0).max(1).optional().describe("nucleus sampling: the smallest set of tokens whose probability reaches topP"),
  seed: z.number().int().min(0).optional().describe("sampling seed; unset: a random one per answer"),
  maxOutputTokens: z
    .number()
    .int()
    .min(1)
    .nullable()
    .default(2048)
    .describe("cap on tokens generated per call (the default leaves 6,144 of the default context for the prompt); null: up to the context's end"),
  parallel: z
    .number()
    .int()
    .min(1)
    .max(MAX_PARALLEL)
    .default(1)
    .describe(
      "conversations evaluated together (batched) on the shared model; more wait; each holds contextSize tokens of memory (1: one at a time, faster on a 2-core CPU: docs/benchmarks/embedded-model.md)",
    ),
});
export type LlamaCppModelConfig = z.infer<typeof LlamaCppModelConfig>;

/** What must match for two roles to share one loaded model: the file and how it is loaded. */
export const loadKeyOf = (c: Pick<LlamaCppModelConfig, "gpu" | "gpuLayers">, realPath: string): string =>
  JSON.stringify([realPath, c.gpu, c.gpuLayers ?? "auto"]);

/** What must also match for them to share one context (its sequences are the conversations at once). */
export const contextKeyOf = (c: LlamaCppModelConfig, realPath: string): string =>
  JSON.stringify([loadKeyOf(c, realPath), c.contextSize, c.threads ?? "auto", c.parallel]);
