import type { AssistantTurn, Message, ToolCall, ToolSpec } from "../../src/llm/chat-model.ts";
import { answeredParts, HexaChatOpenAI } from "../../src/llm/openai-chat.ts";

/** A role's model answered from a script, recording what it was sent in the record form (unit tests of the loop). */
export type Scripted = Partial<AssistantTurn> | Error | ((messages: Message[]) => Partial<AssistantTurn>);

/** A scripted tool call; the model that answers with it numbers it (call_1, call_2, … per model). */
export const call = (name: string, args: unknown): ToolCall => ({ id: "", name, args, rawArgs: JSON.stringify(args) });

type Received = { messages: Message[]; tools: ToolSpec[] }[];

/** The script's answers in order; tool calls numbered by this script alone, not by what other tests ran before. */
const scriptAnswer = (script: Scripted[], received: Received) => {
  let numbered = 0;
  return async (messages: Message[], tools: ToolSpec[]): Promise<AssistantTurn> => {
    received.push({ messages: structuredClone(messages), tools });
    const next = script.shift();
    if (next === undefined) throw new Error("script exhausted");
    if (next instanceof Error) throw next;
    const turn = typeof next === "function" ? next(messages) : next;
    const toolCalls = turn.toolCalls?.map((c) => (c.id === "" ? { ...c, id: `call_${++numbered}` } : c));
    return {
      text: "",
      toolCalls: [],
      usage: { input: 100, output: 20, cached: 10 },
      model: "scripted-model-2026",
      latencyMs: 1,
      fromCache: false,
      ...turn,
      ...(toolCalls ? { toolCalls } : {}),
    };
  };
};

export class ScriptedModel extends HexaChatOpenAI {
  readonly received: Received;

  constructor(script: Scripted[]) {
    const received: Received = [];
    // One script for the model's life: every request is answered by its next step.
    const answer = scriptAnswer(script, received);
    super(answeredParts("scripted-model", () => answer));
    this.received = received;
  }
}
