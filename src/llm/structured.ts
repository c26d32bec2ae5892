import type { AIMessage } from "@langchain/core/messages";
import type { z } from "zod";
import { ModelOutputError } from "../errors.ts";
import { answerOf, toAgentMessages } from "./agent-messages.ts";
import type { AssistantTurn, ChatModel, Message } from "./chat-model.ts";
import { langchainOf } from "./openai-chat.ts";
import { answerText, readStructured } from "./structured-read.ts";

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
export const invokeStructured = async <S extends z.ZodType>(
  model: ChatModel,
  messages: Message[],
  schema: S,
  o: StructuredOptions,
): Promise<StructuredResult<z.infer<S>>> => {
  const asked = langchainOf(model).withStructuredOutput(schema, { name: o.name, includeRaw: true });
  const retries = o.retries ?? 1;
  const turns: AssistantTurn[] = [];
  let conversation = messages;
  for (let attempt = 0; ; attempt++) {
    const { raw } = await asked.invoke(toAgentMessages(conversation));
    const turn = answerOf(raw as AIMessage, model.name);
    turns.push(turn);
    const read = readStructured(turn, schema);
    if ("value" in read) return { value: read.value as z.infer<S>, turns };
    if (attempt >= retries) throw new ModelOutputError(`structured output failed after ${attempt + 1} attempt(s): ${read.problem}`);
    conversation = [
      ...conversation,
      // The answer goes back as text even when it came as a forced tool's arguments: no tool result follows it.
      { role: "assistant", content: answerText(turn), toolCalls: [] },
      { role: "user", content: `Your answer could not be used: ${read.problem}. Answer again with only the corrected JSON object.` },
    ];
  }
};
