import { BaseChatModel } from "@langchain/core/language_models/chat_models";
import { AIMessage, type BaseMessage, HumanMessage, SystemMessage, ToolMessage } from "@langchain/core/messages";
import type { ChatResult } from "@langchain/core/outputs";
import { describe, expect, it } from "vitest";
import { assistantMessage, toRecordMessages } from "./agent-messages.ts";
import { ask } from "./ask.ts";
import type { AssistantTurn, Message, ToolSpec } from "./chat-model.ts";
import { embeddedWire } from "./embedded-wire.ts";
import type { LlamaCppChatModel } from "./llama-cpp/chat-model.ts";
import { answeredParts, HexaChatOpenAI } from "./openai-chat.ts";

const PROBE: ToolSpec = { name: "probe", description: "reads", parameters: { type: "object", properties: { x: { type: "number" } } } };

/** A conversation with a call whose arguments did not parse, and the tool's reply to a call. */
const CONVERSATION = (): BaseMessage[] => [
  new SystemMessage("You solve a task."),
  new HumanMessage("Solve it."),
  assistantMessage("try", [{ id: "a", name: "probe", args: {}, rawArgs: "{x: 1", argsError: "probe: arguments are not valid JSON" }]),
  new ToolMessage({ content: "your arguments were not JSON", tool_call_id: "a", name: "probe" }),
];

const TURN: AssistantTurn = { text: "ok", toolCalls: [], usage: { input: 1, output: 1, cached: 0 }, model: "m", latencyMs: 0, fromCache: false };

/** An in-process chat model that records what it is asked and with which tools bound. */
class Recording extends BaseChatModel {
  asked: BaseMessage[][] = [];
  bound: unknown[] = [];
  _llmType() {
    return "recording";
  }
  override withConfig(config: Partial<this["ParsedCallOptions"]>) {
    const tools = (config as { tools?: unknown }).tools;
    if (tools) this.bound.push(tools);
    return this;
  }
  async _generate(messages: BaseMessage[]): Promise<ChatResult> {
    this.asked.push(messages);
    return { generations: [{ text: "ok", message: new AIMessage({ content: "", tool_calls: [{ id: "b", name: "probe", args: { x: 2 } }] }) }] };
  }
}

describe("a model answered in this process", () => {
  it("is handed the request's own langchain messages beside their record form", async () => {
    const seen: { messages: readonly BaseMessage[]; recorded: Message[] }[] = [];
    const model = new HexaChatOpenAI(
      answeredParts("m", (messages) => async (recorded) => {
        seen.push({ messages, recorded });
        return TURN;
      }),
    );
    const conversation = CONVERSATION();
    await ask(model, conversation);
    expect(seen).toHaveLength(1);
    expect(seen[0]!.messages).toEqual(conversation);
    expect(seen[0]!.messages[2]).toBe(conversation[2]);
    expect(seen[0]!.recorded).toEqual(toRecordMessages(conversation));
  });

  it("embedded: asks the chat model those messages with the request's tools bound, and reads its call as an endpoint's", async () => {
    const chat = new Recording({});
    const conversation = CONVERSATION();
    const wire = embeddedWire(chat as unknown as LlamaCppChatModel, conversation, {
      name: "model.gguf",
      identity: "gguf:sha256:abc",
      where: "llm.actor",
      maxOutputTokens: null,
      notice: () => {},
    });
    const turn = await wire.invoke(toRecordMessages(conversation), [PROBE]);
    expect(chat.asked).toEqual([conversation]);
    expect(chat.asked[0]![2]).toBe(conversation[2]);
    expect(chat.bound).toEqual([[{ type: "function", function: { name: "probe", description: "reads", parameters: PROBE.parameters } }]]);
    expect(turn).toMatchObject({ toolCalls: [{ id: "b", name: "probe", args: { x: 2 }, rawArgs: '{"x":2}' }], model: "gguf:sha256:abc" });
  });
});
