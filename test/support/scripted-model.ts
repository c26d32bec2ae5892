import type { AssistantTurn, ChatModel, Message, ToolCall, ToolSpec } from "../../src/llm/chat-model.ts";

/** A model port that answers from a script and records what it was sent (unit tests of the loop). */
export type Scripted = Partial<AssistantTurn> | Error | ((messages: Message[]) => Partial<AssistantTurn>);

let ids = 0;
export const call = (name: string, args: unknown): ToolCall => ({ id: `call_${++ids}`, name, args, rawArgs: JSON.stringify(args) });

export class ScriptedModel implements ChatModel {
  readonly name = "scripted-model";
  readonly received: { messages: Message[]; tools: ToolSpec[] }[] = [];
  constructor(private readonly script: Scripted[]) {}

  async invoke(messages: Message[], tools: ToolSpec[]): Promise<AssistantTurn> {
    this.received.push({ messages: structuredClone(messages), tools });
    const next = this.script.shift();
    if (next === undefined) throw new Error("script exhausted");
    if (next instanceof Error) throw next;
    const turn = typeof next === "function" ? next(messages) : next;
    return { text: "", toolCalls: [], usage: { input: 100, output: 20, cached: 10 }, model: "scripted-model-2026", latencyMs: 1, fromCache: false, ...turn };
  }
}
