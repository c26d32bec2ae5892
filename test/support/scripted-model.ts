import type { AssistantTurn, ChatModel, Message, ToolCall, ToolSpec } from "../../src/llm/chat-model.ts";

/** A model port that answers from a script and records what it was sent (unit tests of the loop). */
export type Scripted = Partial<AssistantTurn> | Error | ((messages: Message[]) => Partial<AssistantTurn>);

/** A scripted tool call; the model that answers with it numbers it (call_1, call_2, … per model). */
export const call = (name: string, args: unknown): ToolCall => ({ id: "", name, args, rawArgs: JSON.stringify(args) });

export class ScriptedModel implements ChatModel {
  readonly name = "scripted-model";
  readonly received: { messages: Message[]; tools: ToolSpec[] }[] = [];
  /** Tool calls numbered so far: ids depend on this model's script alone, not on what other tests ran before. */
  private numbered = 0;
  constructor(private readonly script: Scripted[]) {}

  async invoke(messages: Message[], tools: ToolSpec[]): Promise<AssistantTurn> {
    this.received.push({ messages: structuredClone(messages), tools });
    const next = this.script.shift();
    if (next === undefined) throw new Error("script exhausted");
    if (next instanceof Error) throw next;
    const turn = typeof next === "function" ? next(messages) : next;
    const toolCalls = turn.toolCalls?.map((c) => (c.id === "" ? { ...c, id: `call_${++this.numbered}` } : c));
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
  }
}
