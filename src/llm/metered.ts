import type { AssistantTurn, ChatModel } from "./chat-model.ts";
import { HexaChatOpenAI, portOf } from "./openai-chat.ts";

/**
 * The same model, reporting every answered call (failed structured-output attempts included) to `onTurn`; a
 * role's model hears its answers in its own `_generate`, so the actor's agent, which drives it directly, is metered too.
 */
export const metered = (inner: ChatModel, onTurn: (turn: AssistantTurn) => void): ChatModel => {
  if (inner.langchain instanceof HexaChatOpenAI) return portOf(inner.langchain.listening(onTurn));
  return {
    name: inner.name,
    invoke: async (messages, tools, output) => {
      const turn = await inner.invoke(messages, tools, output);
      onTurn(turn);
      return turn;
    },
  };
};
