import type { z } from "zod";
import { toAgentMessages } from "./agent-messages.ts";
import { askStructured, type StructuredOptions, type StructuredResult } from "./ask.ts";
import type { ChatModel, Message } from "./chat-model.ts";
import { langchainOf } from "./openai-chat.ts";

export type { StructuredOptions, StructuredResult } from "./ask.ts";

/** askStructured (src/llm/ask.ts) for a caller still on the port's messages. */
export const invokeStructured = <S extends z.ZodType>(
  model: ChatModel,
  messages: Message[],
  schema: S,
  o: StructuredOptions,
): Promise<StructuredResult<z.infer<S>>> => askStructured(langchainOf(model), toAgentMessages(messages), schema, o);
