import type { z } from "zod";
import { ModelOutputError } from "../errors.ts";
import type { AssistantTurn, ChatModel, Message } from "./chat-model.ts";

/** The JSON object in a model's text: the whole text, a fenced block, or the outermost braces. */
export const extractJson = (text: string): unknown => {
  const fenced = /```(?:json)?\s*([\s\S]*?)```/i.exec(text)?.[1];
  const candidates = [text.trim(), fenced?.trim(), text.slice(text.indexOf("{"), text.lastIndexOf("}") + 1)];
  for (const c of candidates) {
    if (!c) continue;
    try {
      return JSON.parse(c);
    } catch {
      // try the next reading
    }
  }
  throw new ModelOutputError(`the answer is not JSON (starts with ${JSON.stringify(text.slice(0, 80))})`);
};

const describeIssues = (e: z.ZodError): string =>
  e.issues
    .slice(0, 5)
    .map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`)
    .join("; ");

export interface StructuredResult<T> {
  value: T;
  /** Every model call made, the failed attempt included. */
  turns: AssistantTurn[];
}

/**
 * Structured output that works with any OpenAI-compatible server (llama.cpp and Ollama included): the model
 * answers in JSON text, zod validates it, and one failure gets one retry with the error shown to the model
 * (docs/spec/method.md §1.4: retry once, then the caller keeps its old state and records the failure).
 */
export const invokeStructured = async <S extends z.ZodType>(
  model: ChatModel,
  messages: Message[],
  schema: S,
  retries = 1,
): Promise<StructuredResult<z.infer<S>>> => {
  const turns: AssistantTurn[] = [];
  let conversation = messages;
  for (let attempt = 0; ; attempt++) {
    const turn = await model.invoke(conversation, []);
    turns.push(turn);
    let problem: string;
    try {
      // An answer cut at the output cap is named as that, never as "not JSON".
      if (turn.problem) throw new ModelOutputError(turn.problem);
      const parsed = schema.safeParse(extractJson(turn.text));
      if (parsed.success) return { value: parsed.data, turns };
      problem = `the JSON does not match the schema: ${describeIssues(parsed.error)}`;
    } catch (e) {
      if (!(e instanceof ModelOutputError)) throw e;
      problem = e.message;
    }
    if (attempt >= retries) throw new ModelOutputError(`structured output failed after ${attempt + 1} attempt(s): ${problem}`);
    conversation = [
      ...conversation,
      { role: "assistant", content: turn.text, toolCalls: [] },
      { role: "user", content: `Your answer could not be used: ${problem}. Answer again with only the corrected JSON object.` },
    ];
  }
};
