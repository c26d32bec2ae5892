import { AIMessage, ChatMessage, HumanMessage, ToolMessage, type BaseMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { answerMessage, answerOf, assistantMessage, toRecordMessages } from "./agent-messages.ts";
import type { AssistantTurn, Message, ToolCall } from "./chat-model.ts";

const CALLS: ToolCall[] = [
  { id: "a", name: "simulate", args: { x: 1 }, rawArgs: '{"x": 1}' },
  { id: "b", name: "simulate", args: {}, rawArgs: "{x: 1", argsError: "simulate: arguments are not valid JSON" },
  { id: "c", name: "probe", args: [1, 2], rawArgs: "[1,2]" },
];
const AGENT: BaseMessage[] = [
  new HumanMessage("Solve it."),
  assistantMessage("try", CALLS),
  new ToolMessage({ content: "[turn 1 of 5 used; 4 left]\nok", tool_call_id: "a", name: "simulate" }),
  assistantMessage("", []),
  new HumanMessage("nudge"),
];
const RECORDED: Message[] = [
  { role: "user", content: "Solve it." },
  { role: "assistant", content: "try", toolCalls: CALLS },
  { role: "tool", content: "[turn 1 of 5 used; 4 left]\nok", toolCallId: "a", name: "simulate" },
  { role: "assistant", content: "", toolCalls: [] },
  { role: "user", content: "nudge" },
];

describe("an agent's langchain messages in the record form", () => {
  it("keep each call exactly as the model wrote it: raw arguments, parse errors and non-object arguments included", () => {
    expect(toRecordMessages(AGENT)).toEqual(RECORDED);
  });

  it("carry a middleware's edit of a call: the edited arguments are sent, as their JSON", () => {
    const assistant = AGENT[1] as AIMessage;
    const edited = new AIMessage({
      content: assistant.content,
      tool_calls: [{ ...assistant.tool_calls![0]!, args: { x: 2 } }],
      additional_kwargs: assistant.additional_kwargs,
    });
    expect(toRecordMessages([edited])).toEqual([
      { role: "assistant", content: "try", toolCalls: [{ id: "a", name: "simulate", args: { x: 2 }, rawArgs: '{"x":2}' }] },
    ]);
  });

  it("refuse a kind of message the record form has no role for, naming it", () => {
    expect(() => toRecordMessages([new ChatMessage("hi", "critic")])).toThrow(/a generic message cannot be sent to hexa's role models/);
  });

  it("keep the whole answer on the agent's message; one a middleware made reads as its text and calls, with no usage", () => {
    const turn: AssistantTurn = {
      text: "t",
      toolCalls: [{ id: "a", name: "simulate", args: { x: 1 }, rawArgs: '{"x": 1}' }],
      reasoning: "because",
      usage: { input: 10, output: 2, cached: 4 },
      model: "m-2026",
      latencyMs: 7,
      fromCache: false,
    };
    const message = answerMessage(turn);
    expect(answerOf(message, "m")).toEqual(turn);
    expect(message.usage_metadata).toMatchObject({ input_tokens: 10, output_tokens: 2, input_token_details: { cache_read: 4 } });
    expect(answerOf(new AIMessage("made up"), "m")).toEqual({
      text: "made up",
      toolCalls: [],
      usage: { input: 0, output: 0, cached: 0 },
      model: "m",
      latencyMs: 0,
      fromCache: false,
    });
  });
});
