import { HumanMessage, SystemMessage } from "@langchain/core/messages";
import { z } from "zod";
import { LlamaCppChatModel } from "./chat-model.ts";
import type { LlamaCppModelConfig } from "./config.ts";
import type { LlamaModels, SharedModel } from "./loaded-models.ts";
import { parameterCountOf, quantisationOf, trainedContextOf } from "./model-file.ts";

/** What `hexa doctor --model <file.gguf>` reports of an embedded model. */
export interface EmbeddedReport {
  path: string;
  architecture: string;
  quantisation: string;
  parameters: number;
  fileBytes: number;
  trainedContext: number | null;
  contextSize: number;
  templateSource: string;
  gpu: string;
  /** Resident memory the load added (RSS after minus before), bytes. */
  ramBytes: number;
  promptTokensPerS: number;
  generationTokensPerS: number;
  /** "parses", or why the grammar-held tool call did not. */
  toolCall: string;
  recommended: Pick<LlamaCppModelConfig, "contextSize" | "parallel"> & { threads: number; gpu: "auto" | false };
}

const PROMPT_TOKENS = 128;
const GENERATED_TOKENS = 32;

/** Tokens per second of a prompt's evaluation and of greedy generation, on a sequence emptied afterwards. */
const speedOf = (shared: SharedModel) =>
  shared.withSequence(async (sequence) => {
    const prompt = shared.model.tokenize("The quick brown fox jumps over the lazy dog. ".repeat(64)).slice(0, PROMPT_TOKENS);
    try {
      const t0 = performance.now();
      await sequence.evaluateWithoutGeneratingNewTokens(prompt);
      const t1 = performance.now();
      let n = 0;
      for await (const _ of sequence.evaluate(prompt.slice(-1), { temperature: 0 })) if (++n >= GENERATED_TOKENS) break;
      const t2 = performance.now();
      return { promptTokensPerS: (prompt.length * 1000) / (t1 - t0), generationTokensPerS: (n * 1000) / (t2 - t1) };
    } finally {
      await sequence.clearHistory();
    }
  });

const PROBE_TOOL = z.object({ direction: z.enum(["left", "right"]), steps: z.number().int() });

/** Whether a tool call held to a grammar comes back as one call whose arguments the tool's schema accepts. */
const toolCallOf = async (config: LlamaCppModelConfig, models: LlamaModels, where: string): Promise<string> => {
  const model = new LlamaCppChatModel({ config: { ...config, maxOutputTokens: 64, temperature: 0 }, models, where });
  const tool = { name: "move", description: "Move the marker.", schema: PROBE_TOOL };
  const answer = await model.bindTools([tool]).invoke([new SystemMessage("You move a marker."), new HumanMessage("Move it two steps left.")]);
  const [call, ...more] = answer.tool_calls ?? [];
  if (!call) return `fails (${answer.invalid_tool_calls?.[0]?.error ?? "no call"})`;
  if (more.length) return `fails (${more.length + 1} calls)`;
  const args = PROBE_TOOL.safeParse(call.args);
  return args.success ? "parses" : `fails (${args.error.issues[0]?.message})`;
};

/**
 * Loads the model `config` names, measures it, and says how to configure it: `hexa doctor --model <file.gguf>`.
 * The speeds are this machine's, with the threads `config` gives.
 */
export const probeEmbedded = async (config: LlamaCppModelConfig, models: LlamaModels, where: string): Promise<EmbeddedReport> => {
  const shared = await models.acquire(config, where);
  const { info } = shared.file;
  const trained = trainedContextOf(info);
  const speed = await speedOf(shared);
  return {
    path: shared.file.realPath,
    architecture: info.metadata.general.architecture,
    quantisation: quantisationOf(info),
    parameters: parameterCountOf(info),
    fileBytes: shared.file.bytes,
    trainedContext: trained,
    contextSize: config.contextSize,
    templateSource: shared.templateSource,
    gpu: shared.llama.gpu === false ? "none (CPU)" : shared.llama.gpu,
    ramBytes: Math.max(0, shared.rss.after - shared.rss.before),
    ...speed,
    toolCall: await toolCallOf(config, models, where),
    recommended: {
      contextSize: Math.min(trained ?? config.contextSize, 8192),
      threads: shared.llama.cpuMathCores,
      gpu: shared.llama.gpu === false ? false : "auto",
      // One conversation at a time: batching was slower on a 2-core CPU (docs/benchmarks/embedded-model.md).
      parallel: 1,
    },
  };
};
