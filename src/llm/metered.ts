import type { AssistantTurn, ChatModel } from "./chat-model.ts";

/** The same model, reporting every answered call (failed structured-output attempts included) to `onTurn`. */
export const metered = (inner: ChatModel, onTurn: (turn: AssistantTurn) => void): ChatModel => ({
  name: inner.name,
  invoke: async (messages, tools, output) => {
    const turn = await inner.invoke(messages, tools, output);
    onTurn(turn);
    return turn;
  },
});
