import { z } from "zod";
import { ModelOutputError } from "../errors.ts";
import type { AssistantTurn } from "./chat-model.ts";

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

/** The answer's JSON text: a forced tool's arguments, else the message text. */
export const answerText = (turn: AssistantTurn): string => turn.toolCalls[0]?.rawArgs ?? turn.text;

/**
 * The JSON answer of a turn, checked by `schema` when it is a zod schema (a JSON Schema is the server's to hold),
 * or what is wrong with it; an answer cut at the output cap is named as that, never as "not JSON".
 */
export const readStructured = (turn: AssistantTurn, schema: unknown): { value: unknown } | { problem: string } => {
  if (turn.problem) return { problem: turn.problem };
  let json: unknown;
  try {
    json = extractJson(answerText(turn));
  } catch (e) {
    if (!(e instanceof ModelOutputError)) throw e;
    return { problem: e.message };
  }
  if (!(schema instanceof z.ZodType)) return { value: json };
  const parsed = schema.safeParse(json);
  return parsed.success ? { value: parsed.data } : { problem: `the JSON does not match the schema: ${describeIssues(parsed.error)}` };
};
