import { z } from "zod";
import { ModelOutputError } from "../errors.ts";
import type { AssistantTurn, ChatModel, Message, OutputRequest } from "./chat-model.ts";

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

/** The JSON Schema a server is asked to hold the answer to: what the model may send (defaults optional). */
const outputRequest = (name: string, schema: z.ZodType): OutputRequest => {
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" });
  return { name, schema: json };
};

/** The answer's JSON text: a forced tool's arguments, else the message text. */
const answerText = (turn: AssistantTurn): string => turn.toolCalls[0]?.rawArgs ?? turn.text;

export interface StructuredOptions {
  /** The schema's name on the wire (response_format's json_schema.name or the forced tool's name). */
  name: string;
  /** Retries after an answer that is not valid JSON or fails the schema (method.md §1: one). */
  retries?: number;
}

/**
 * Structured output on any OpenAI-compatible server: the schema goes along with the call (the adapter asks the
 * server to hold the answer to it where it can, src/llm/structured-output.ts), the prompt asks for JSON as well,
 * zod validates, and one failure gets one retry with the error shown to the model (docs/spec/method.md §1.4: retry once, then
 * the caller keeps its old state and records the failure).
 */
export const invokeStructured = async <S extends z.ZodType>(
  model: ChatModel,
  messages: Message[],
  schema: S,
  o: StructuredOptions,
): Promise<StructuredResult<z.infer<S>>> => {
  const output = outputRequest(o.name, schema);
  const retries = o.retries ?? 1;
  const turns: AssistantTurn[] = [];
  let conversation = messages;
  for (let attempt = 0; ; attempt++) {
    const turn = await model.invoke(conversation, [], output);
    turns.push(turn);
    const text = answerText(turn);
    let problem: string;
    try {
      // An answer cut at the output cap is named as that, never as "not JSON".
      if (turn.problem) throw new ModelOutputError(turn.problem);
      const parsed = schema.safeParse(extractJson(text));
      if (parsed.success) return { value: parsed.data, turns };
      problem = `the JSON does not match the schema: ${describeIssues(parsed.error)}`;
    } catch (e) {
      if (!(e instanceof ModelOutputError)) throw e;
      problem = e.message;
    }
    if (attempt >= retries) throw new ModelOutputError(`structured output failed after ${attempt + 1} attempt(s): ${problem}`);
    conversation = [
      ...conversation,
      // The answer goes back as text even when it came as a forced tool's arguments: no tool result follows it.
      { role: "assistant", content: text, toolCalls: [] },
      { role: "user", content: `Your answer could not be used: ${problem}. Answer again with only the corrected JSON object.` },
    ];
  }
};
