import { type AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages";
import { describe, expect, it } from "vitest";
import { assistantMessage } from "../src/llm/agent-messages.ts";
import { replyContext, turnsReader } from "./agent-turns.ts";

const call = { id: "c1", name: "probe", args: { x: 1 }, rawArgs: '{"x":1}' };
const messages = () => [
  assistantMessage("look", [call]),
  new ToolMessage({
    content: "[turn 0 of 5 used; 5 left]\nseen",
    tool_call_id: "c1",
    name: "probe",
    additional_kwargs: replyContext({ pinned: true, compact: [] }),
  }),
  assistantMessage("hm", []),
  new HumanMessage("call a tool"),
];

describe("turnsReader", () => {
  const turnsOf = turnsReader();

  it("reads each turn of the agent's messages: the thought, the call, the reply and whether it is pinned", () => {
    expect(turnsOf(messages())).toEqual([
      { thought: "look", call, reply: "[turn 0 of 5 used; 5 left]\nseen", pinned: true },
      { thought: "hm", call: undefined, reply: "call a tool", pinned: false },
    ]);
  });

  it("gives the same turn for the same messages, and reads a message edited in place anew", () => {
    const agent = messages();
    const [first] = turnsOf(agent);
    expect(turnsOf(agent)[0]).toBe(first);
    agent[1]!.content = "edited";
    expect(turnsOf(agent)[0]).toMatchObject({ reply: "edited" });
    // A call edited inside its message's own array, or inside its own arguments object.
    const ai = agent[0] as AIMessage;
    ai.tool_calls![0]!.args = { x: 2 };
    expect(turnsOf(agent)[0]!.call).toMatchObject({ args: { x: 2 } });
    (ai.tool_calls![0]!.args as { x: number }).x = 3;
    expect(turnsOf(agent)[0]!.call).toMatchObject({ args: { x: 3 } });
  });

  it("refuses a message where a turn's AI message or reply should be, naming it", () => {
    expect(() => turnsOf([new HumanMessage("x")])).toThrow(/message 1 after the task is a human message where an AI message was expected/);
    expect(() => turnsOf([assistantMessage("x", [call])])).toThrow(/message 2 after the task is nothing where the reply/);
  });
});
