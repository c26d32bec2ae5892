import type { LlamaModels } from "../llm/llama-cpp/loaded-models.ts";

/** One `LlamaModels` for the process, made on first use: node-llama-cpp is loaded only by a command that runs a model. */
export interface EmbeddedModels {
  get(): Promise<LlamaModels>;
  close(): Promise<void>;
}

export const embeddedModels = (): EmbeddedModels => {
  let models: Promise<LlamaModels> | undefined;
  return {
    get: () => (models ??= import("../llm/llama-cpp/loaded-models.ts").then((m) => new m.LlamaModels())),
    close: async () => {
      if (models) await (await models).close();
    },
  };
};
