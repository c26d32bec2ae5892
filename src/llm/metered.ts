import type { AssistantTurn, ChatModel } from "./chat-model.ts";
import { langchainOf, portOf } from "./openai-chat.ts";

/**
 * The same model, reporting every answered call (failed structured-output attempts included) to `onTurn`: the
 * model object hears its answers in its own `_generate`, so the actor's agent, which drives it directly, is metered too.
 */
export const metered = (inner: ChatModel, onTurn: (turn: AssistantTurn) => void): ChatModel => portOf(langchainOf(inner).listening(onTurn));
