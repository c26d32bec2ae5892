import type { BaseMessage } from "@langchain/core/messages";
import { ask, type RoleModel } from "../../src/llm/ask.ts";
import type { AssistantTurn, ToolSpec } from "../../src/llm/chat-model.ts";

/** hexa's reading of the model's answer to `messages` (src/llm/ask.ts), for tests that check the reading alone. */
export const turnOf = async (model: RoleModel, messages: readonly BaseMessage[], tools: readonly ToolSpec[] = []): Promise<AssistantTurn> =>
  (await ask(model, messages, tools)).turn;
