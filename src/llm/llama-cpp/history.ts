import { AIMessage, type BaseMessage, ToolMessage } from "@langchain/core/messages";
import type { ChatHistoryItem } from "node-llama-cpp";
import { splitThink } from "../think.ts";
import type { FunctionTool } from "./json-grammar.ts";

/**
 * langchain messages as node-llama-cpp's chat history, which the chat wrapper renders with the model's template.
 * Tool calls are shown to the model in the form it is asked to answer in (one JSON object `{"name", "arguments"}`,
 * held by grammar), and a tool's result as a user turn naming the call: the same text whatever the template, so
 * a model without a tool-call format of its own reads its history as it wrote it. Reasoning (`<think>`) in an
 * earlier answer is left out, as for a server (src/llm/think.ts).
 */

const textOf = (m: BaseMessage): string =>
  typeof m.content === "string"
    ? m.content
    : m.content.flatMap((part) => (typeof part === "string" ? [part] : part.type === "text" && typeof part.text === "string" ? [part.text] : [])).join("");

/** The text an answer's tool call is written as, in history and under grammar. */
const callText = (name: string, args: unknown): string => JSON.stringify({ name, arguments: args });

const toolsText = (tools: readonly FunctionTool[]): string =>
  [
    'Answer with exactly one tool call: a JSON object {"name": <tool name>, "arguments": <object>} whose arguments follow that tool\'s JSON schema. The tools:',
    ...tools.map(({ function: f }) => `- ${f.name}: ${f.description ?? ""}\n  arguments schema: ${JSON.stringify(f.parameters ?? {})}`),
  ].join("\n");

const jsonText = (schema: unknown): string => `Answer with one JSON value that follows this JSON schema:\n${JSON.stringify(schema)}`;

const itemOf = (m: BaseMessage): ChatHistoryItem => {
  if (AIMessage.isInstance(m)) {
    const calls = (m.tool_calls ?? []).map((c) => callText(c.name, c.args));
    return { type: "model", response: [calls.length ? calls.join("\n") : splitThink(textOf(m)).text] };
  }
  if (ToolMessage.isInstance(m)) return { type: "user", text: `Result of ${m.name || "the tool call"} (${m.tool_call_id}):\n${textOf(m)}` };
  const type = m.getType();
  if (type === "system" || type === "developer") return { type: "system", text: textOf(m) };
  return { type: "user", text: textOf(m) };
};

/** What the model is told of its answer's form, added to the system message (one is made if none leads). */
const withInstructions = (items: ChatHistoryItem[], instructions: string): ChatHistoryItem[] => {
  const [first, ...rest] = items;
  if (first?.type === "system") return [{ type: "system", text: `${first.text}\n\n${instructions}` }, ...rest];
  return [{ type: "system", text: instructions }, ...items];
};

/** The history to complete: the messages, the answer's form when one is held, and the answer still to write. */
export const toChatHistory = (
  messages: readonly BaseMessage[],
  held: { tools: readonly FunctionTool[] } | { jsonSchema: unknown } | undefined,
): ChatHistoryItem[] => {
  const items = messages.map(itemOf);
  const instructions = held === undefined ? undefined : "tools" in held ? toolsText(held.tools) : jsonText(held.jsonSchema);
  return [...(instructions ? withInstructions(items, instructions) : items), { type: "model", response: [] }];
};
