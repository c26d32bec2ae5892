import type { ChatHistoryItem } from "node-llama-cpp";
import type { LoadedModel } from "./loaded-models.ts";

/** The prompt's tokens, counted by the model's tokenizer on the text its chat template renders. */
export const promptTokens = (loaded: Pick<LoadedModel, "chatWrapper" | "model">, history: ChatHistoryItem[]): number =>
  loaded.chatWrapper.generateContextState({ chatHistory: history }).contextText.tokenize(loaded.model.tokenizer).length;
