import { AIMessage, HumanMessage, type BaseMessage } from "@langchain/core/messages";
import type { z } from "zod";
import { ModelOutputError } from "../errors.ts";
import { answerOf } from "./agent-messages.ts";
import type { AssistantTurn, ToolSpec } from "./chat-model.ts";
import { toOpenAITool } from "./langchain-messages.ts";
import type { HexaChatOpenAI } from "./openai-chat.ts";
import { answerText, readStructured } from "./structured-read.ts";

/** A role's model: every role (actor, evolver, synthesiser, proposers, judges) is one langchain ChatOpenAI. */
export type RoleModel = HexaChatOpenAI;

/** One answer of a role's model: langchain's message (to append to a conversation) and hexa's reading of it. */
export interface Asked {
  message: AIMessage;
  turn: AssistantTurn;
}

/** The model's answer to `messages`, with `tools` bound when there are any (bindTools([]) would still send tool_choice). */
export const ask = async (model: RoleModel, messages: readonly BaseMessage[], tools: readonly ToolSpec[] = []): Promise<Asked> => {
  const runnable = tools.length > 0 ? model.bindTools(tools.map(toOpenAITool)) : model;
  const message = (await runnable.invoke([...messages])) as AIMessage;
  return { message, turn: answerOf(message, model.model) };
};

/** What a conversation is told after an answer that could not be used, to have it answered again. */
export const unusableAnswer = (problem: string): HumanMessage =>
  new HumanMessage(`Your answer could not be used: ${problem}. Answer again with only the corrected JSON object.`);

export interface StructuredResult<T> {
  value: T;
  /** Every model call made, the failed attempt included. */
  turns: AssistantTurn[];
}

export interface StructuredOptions {
  /** The schema's name on the wire (response_format's json_schema.name or the forced tool's name). */
  name: string;
  /** Retries after an answer that is not valid JSON or fails the schema (method.md §1: one). */
  retries?: number;
}

/**
 * Structured output on any OpenAI-compatible server: langchain's `withStructuredOutput` on the role's model (which
 * sends the schema the way the server takes, src/llm/structured-output.ts), the prompt asks for JSON as well, zod
 * validates, and one failure gets one retry with the error shown to the model (docs/spec/method.md §1.4: retry
 * once, then the caller keeps its old state and records the failure).
 */
export const askStructured = async <S extends z.ZodType>(
  model: RoleModel,
  messages: readonly BaseMessage[],
  schema: S,
  o: StructuredOptions,
): Promise<StructuredResult<z.infer<S>>> => {
  const structured = model.withStructuredOutput(schema, { name: o.name, includeRaw: true });
  const retries = o.retries ?? 1;
  const turns: AssistantTurn[] = [];
  let conversation = [...messages];
  for (let attempt = 0; ; attempt++) {
    const { raw } = await structured.invoke(conversation);
    const turn = answerOf(raw as AIMessage, model.model);
    turns.push(turn);
    const read = readStructured(turn, schema);
    if ("value" in read) return { value: read.value as z.infer<S>, turns };
    if (attempt >= retries) throw new ModelOutputError(`structured output failed after ${attempt + 1} attempt(s): ${read.problem}`);
    conversation = [
      ...conversation,
      // The answer goes back as text even when it came as a forced tool's arguments: no tool result follows it.
      new AIMessage({ content: answerText(turn), tool_calls: [] }),
      unusableAnswer(read.problem),
    ];
  }
};
