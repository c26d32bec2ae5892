import { z } from "zod";
import { ConfigError } from "../errors.ts";
import { secret } from "../util/secret-fields.ts";
import { LlamaCppModelConfig } from "./llama-cpp/config.ts";
import { ROLES } from "./roles.ts";

export const Role = z.enum(ROLES);
export type Role = z.infer<typeof Role>;

export const DEFAULT_BASE_URL = "https://api.openai.com/v1";
const DEFAULT_CONCURRENCY = 4;

/**
 * How a role asks for JSON (the evolver, the synthesiser, the reward-search proposers): "json_schema" sends
 * `response_format: {type: "json_schema"}`, "tool" forces one tool whose arguments are the answer, "text" asks in
 * the prompt only. "auto" tries them in that order and keeps, per endpoint and model, the first one the server
 * did not refuse with a 400 (src/llm/structured-output.ts).
 */
export const StructuredOutputMode = z.enum(["auto", "json_schema", "tool", "text"]);
export type StructuredOutputMode = z.infer<typeof StructuredOutputMode>;

/** One role's model and endpoint (docs/spec/style.md §8: every default here). */
export const ModelConfig = z.strictObject({
  provider: z.literal("openai").optional().describe("openai (the default): an OpenAI-compatible endpoint; llama-cpp: a GGUF file run in this process"),
  model: z.string().min(1).default("gpt-4.1-mini").describe("model name sent to the endpoint"),
  baseURL: z.url().optional().describe(`OpenAI-compatible endpoint; falls back to OPENAI_BASE_URL, then ${DEFAULT_BASE_URL}`),
  apiKey: secret(z.string().min(1)).optional().describe("API key; falls back to OPENAI_API_KEY"),
  temperature: z
    .number()
    .min(0)
    .max(2)
    .nullable()
    .default(1)
    .describe("sampling temperature; null sends none (the server's default); reasoning models accept only 1"),
  maxOutputTokens: z.number().int().min(1).nullable().default(8192).describe("cap on tokens generated per call; null sends none (the server's own limit)"),
  maxTokensParam: z
    .enum(["max_tokens", "max_completion_tokens"])
    .optional()
    .describe("the request field that carries maxOutputTokens; unset: max_completion_tokens for OpenAI's reasoning models, else max_tokens"),
  toolChoice: z.enum(["auto", "required", "none"]).default("auto").describe("tool_choice sent with the actor's tools"),
  extraBody: z
    .record(z.string(), z.unknown())
    .default({})
    .describe("fields added to every request body as given, e.g. {chat_template_kwargs: {enable_thinking: false}}, reasoning_effort, seed"),
  timeoutMs: z.number().int().min(1).default(120_000).describe("deadline for one HTTP attempt, body included"),
  maxRetries: z.number().int().min(0).default(4).describe("retries after a 429, 5xx, timeout or dropped connection"),
  concurrency: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe(
      `most requests in flight to this endpoint, shared by every role that uses it; unset: ${DEFAULT_CONCURRENCY}, or 1 for a server on this machine (llama.cpp and Ollama serve one request at a time by default)`,
    ),
  streaming: z.boolean().default(false).describe("receive the answer as server-sent events"),
  structuredOutput: StructuredOutputMode.default("auto").describe(
    "how JSON answers are requested: auto (json_schema, then a forced tool, then the prompt alone, first the server accepts), json_schema, tool or text",
  ),
});
export type ModelConfig = z.infer<typeof ModelConfig>;

/** USD per 1M tokens. */
export const Price = z.strictObject({
  input: z.number().min(0).describe("USD per 1M uncached input tokens"),
  cachedInput: z.number().min(0).describe("USD per 1M input tokens served from the provider's prompt cache"),
  output: z.number().min(0).describe("USD per 1M output tokens"),
});
export type Price = z.infer<typeof Price>;

/**
 * OpenAI list prices, USD per 1M tokens, as published on platform.openai.com/docs/pricing and last checked
 * 2025-08 (gpt-5 family added then). hexa's machines have no network, so this table cannot be re-checked from
 * here: override or extend it with llm.prices for your provider and date. A dated snapshot name
 * ("gpt-4.1-mini-2025-04-14") matches its base name.
 */
export const DEFAULT_PRICES: Record<string, Price> = {
  "gpt-4.1": { input: 2, cachedInput: 0.5, output: 8 },
  "gpt-4.1-mini": { input: 0.4, cachedInput: 0.1, output: 1.6 },
  "gpt-4.1-nano": { input: 0.1, cachedInput: 0.025, output: 0.4 },
  "gpt-4o": { input: 2.5, cachedInput: 1.25, output: 10 },
  "gpt-4o-mini": { input: 0.15, cachedInput: 0.075, output: 0.6 },
  "gpt-5": { input: 1.25, cachedInput: 0.125, output: 10 },
  "gpt-5-mini": { input: 0.25, cachedInput: 0.025, output: 2 },
  "gpt-5-nano": { input: 0.05, cachedInput: 0.005, output: 0.4 },
  "o4-mini": { input: 1.1, cachedInput: 0.275, output: 4.4 },
  o3: { input: 2, cachedInput: 0.5, output: 8 },
};

export const PriceTable = z
  .record(z.string(), Price)
  .default(DEFAULT_PRICES)
  .describe("prices per model name; a model missing here is costed at 0 and flagged unpriced");
export type PriceTable = z.infer<typeof PriceTable>;

/**
 * One role's model: an OpenAI-compatible endpoint (no `provider`, or `provider: openai`) or an embedded GGUF model
 * (`provider: llama-cpp`, src/llm/llama-cpp/config.ts).
 */
export const RoleModelConfig = z.discriminatedUnion("provider", [ModelConfig, LlamaCppModelConfig]);
export type RoleModelConfig = z.infer<typeof RoleModelConfig>;

export const isEmbedded = (c: RoleModelConfig): c is LlamaCppModelConfig => c.provider === "llama-cpp";

// A bank edit is an extraction from evidence, not a creative sample: a low temperature keeps reruns alike.
const evolverTemperature = z.number().min(0).max(2).default(0.2).describe("sampling temperature (low for the evolver); reasoning models accept only 1");

/** The evolver's model (and the judge author's): the same fields, a lower default temperature. */
const EvolverModelConfig = z.discriminatedUnion("provider", [
  ModelConfig.extend({ temperature: evolverTemperature }),
  LlamaCppModelConfig.extend({ temperature: evolverTemperature }),
]);

/**
 * Images per request when `maxImages` is unset: enough for 5 s of frames at 10 fps, which OpenAI's and Gemini's
 * endpoints take; vLLM takes what its `--limit-mm-per-prompt` allows (often fewer), and `hexa doctor --role
 * vision` measures it. A server that refuses a request for its size fails the judgment with a message naming this field.
 */
export const DEFAULT_MAX_IMAGES = 50;

// A judgment should not change between two askings of the same frames: a low temperature, as for the evolver.
const visionTemperature = z.number().min(0).max(2).default(0.2).describe("sampling temperature (low for a judge); reasoning models accept only 1");

/**
 * The vision judge's model (docs/guides/judging.md, "Vision judge"): an OpenAI-compatible endpoint that takes
 * images, with what it accepts in one request. An embedded GGUF model takes text only, so it cannot be this role.
 */
const VisionModelConfig = ModelConfig.extend({
  temperature: visionTemperature,
  maxImages: z
    .number()
    .int()
    .min(1)
    .max(512)
    .default(DEFAULT_MAX_IMAGES)
    .describe(`images the server takes in one request; more frames are subsampled evenly to fit; hexa doctor --role vision measures it`),
  video: z.boolean().default(false).describe("the server takes a video_url part (vLLM): the episode also goes as one MP4 clip"),
});

/** The LLM slice of the run config: one model per role, the price table, cache and audit log. */
export const LlmConfig = z.strictObject({
  actor: RoleModelConfig.prefault({}).describe("the model that plays the levels"),
  evolver: EvolverModelConfig.prefault({}).describe("the model that edits the skill bank"),
  synthesiser: RoleModelConfig.prefault({}).describe("the model that writes a bank from descriptions"),
  judge: EvolverModelConfig.prefault({}).describe("the model that writes code judges from an intent"),
  vision: VisionModelConfig.prefault({}).describe("the model that judges a behaviour from its rendered frames (the vision judge)"),
  prices: PriceTable,
  cacheDir: z
    .string()
    .optional()
    .describe("directory of cached responses; identical requests are answered from it; processes may share it, and a damaged entry is a miss with a warning"),
  auditLog: z.string().optional().describe("JSONL file with one line per model call"),
  auditHashOnly: z.boolean().default(false).describe("audit log keeps the messages' sha256, not their text"),
});
export type LlmConfig = z.infer<typeof LlmConfig>;

/** Environment variables this layer reads; the CLI passes process.env. */
export type Env = Record<string, string | undefined>;

export type ResolvedModelConfig = ModelConfig & { baseURL: string; apiKey: string };

/** A base URL on this machine: localhost, 127.0.0.0/8 or ::1. */
const isLoopback = (baseURL: string): boolean => {
  const host = new URL(baseURL).hostname.replace(/^\[|\]$/g, "");
  return host === "localhost" || host === "::1" || /^127\./.test(host);
};

/** The config's concurrency, else the default for where the endpoint is. */
export const concurrencyOf = (config: { baseURL: string; concurrency?: number | undefined }): number =>
  config.concurrency ?? (isLoopback(config.baseURL) ? 1 : DEFAULT_CONCURRENCY);

/** The environment variable that holds one role's key (roles on different endpoints need different keys). */
export const roleKeyVar = (where: string): string => `HEXA_${(where.split(".").at(-1) ?? "").toUpperCase()}_API_KEY`;

/** What a server on this machine gets for a key when none is set: vLLM, llama.cpp and Ollama started without one ignore it. */
export const NO_KEY = "none";

/**
 * Fills baseURL and apiKey: the config's, else the role's HEXA_<ROLE>_API_KEY, else OPENAI_API_KEY / _BASE_URL.
 * A server on this machine (localhost, 127.x, ::1) needs no key. `where` names the config path in errors (e.g. "llm.actor").
 */
export const resolveModelConfig = (config: ModelConfig, env: Env, where: string): ResolvedModelConfig => {
  const baseURL = config.baseURL ?? env.OPENAI_BASE_URL ?? DEFAULT_BASE_URL;
  const parsed = z.url().safeParse(baseURL);
  if (!parsed.success) {
    throw new ConfigError(`OPENAI_BASE_URL: not a URL (got ${JSON.stringify(baseURL)}); set e.g. ${DEFAULT_BASE_URL}`);
  }
  const apiKey = config.apiKey ?? env[roleKeyVar(where)] ?? env.OPENAI_API_KEY ?? (isLoopback(baseURL) ? NO_KEY : undefined);
  if (!apiKey)
    throw new ConfigError(
      `${where}.apiKey: no API key for ${baseURL} (got none); set ${where}.apiKey, ${roleKeyVar(where)} or OPENAI_API_KEY (a server on this machine needs none)`,
    );
  return { ...config, apiKey, baseURL };
};
