import type { ChatOpenAICallOptions } from "@langchain/openai";
import { z } from "zod";
import { ConfigError } from "../errors.ts";
import { ContextOverflow } from "./llm-error.ts";
import type { OutputRequest } from "./chat-model.ts";
import type { StructuredOutputMode } from "./config.ts";

/** The JSON Schema a server is asked to hold an answer to: what the model may send (defaults optional). */
export const answerSchema = (schema: z.ZodType): Record<string, unknown> => {
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, { io: "input", unrepresentable: "any" });
  return json;
};

type BoundOptions = Pick<ChatOpenAICallOptions, "response_format" | "tools" | "tool_choice" | "strict" | "ls_structured_output_format">;

/**
 * The JSON answer that langchain's `withStructuredOutput` bound (its jsonSchema method's response_format, or the
 * forced tool of its functionCalling method), as hexa's request, and the call options with it unset (ChatOpenAI
 * merges its bound options in again on the streaming path): the schema goes to the server the way the server takes
 * (`callWithOutput`), whichever method langchain chose.
 */
export const boundOutput = <O extends BoundOptions>(options: O): { output?: OutputRequest; rest: O } => {
  const asked = options.response_format;
  const unbound = { ...options, response_format: undefined, ls_structured_output_format: undefined };
  if (asked?.type === "json_schema") {
    const { name, schema } = asked.json_schema;
    return { output: { name, schema: schema as Record<string, unknown> }, rest: unbound };
  }
  const forced = options.ls_structured_output_format?.kwargs.method === "function_calling" ? options.tools?.[0] : undefined;
  if (forced && "function" in forced) {
    const { name, parameters } = forced.function;
    return {
      output: { name, schema: (parameters ?? {}) as Record<string, unknown> },
      rest: { ...unbound, tools: undefined, tool_choice: undefined, strict: undefined },
    };
  }
  return { rest: options };
};

/** The ways a JSON answer can be asked for, most reliable first: `auto` tries them in this order. */
const OUTPUT_WAYS = ["json_schema", "tool", "text"] as const;
export type OutputWay = (typeof OUTPUT_WAYS)[number];

/** Per endpoint and model, the first way the server did not refuse; kept for the rest of the process. */
export class OutputMemory {
  private readonly accepted = new Map<string, OutputWay>();

  get(baseURL: string, model: string): OutputWay | undefined {
    return this.accepted.get(`${baseURL} ${model}`);
  }

  set(baseURL: string, model: string, way: OutputWay): void {
    this.accepted.set(`${baseURL} ${model}`, way);
  }
}

const sharedOutputMemory = new OutputMemory();

/** The ways to try, in order, for a role's mode on an endpoint. */
const outputPlan = (mode: StructuredOutputMode, remembered: OutputWay | undefined): readonly OutputWay[] =>
  mode === "auto" ? OUTPUT_WAYS.slice(OUTPUT_WAYS.indexOf(remembered ?? "json_schema")) : [mode];

const TOOL_DESCRIPTION = "Give your complete answer as this function's arguments.";

/** ChatOpenAI call options that ask for the answer one way. */
export type OutputOptions = Pick<ChatOpenAICallOptions, "response_format" | "tools" | "tool_choice">;

/**
 * The call options of one way, as ChatOpenAI's `withStructuredOutput` binds them for its jsonSchema and
 * functionCalling methods; the text way adds nothing (the prompt asks for JSON).
 */
const outputOptions = (way: OutputWay, o: OutputRequest): OutputOptions => {
  switch (way) {
    case "json_schema":
      // strict: false: OpenAI's strict mode rejects optional fields and defaults, which the answers have; zod
      // validates every answer anyway.
      return { response_format: { type: "json_schema", json_schema: { name: o.name, schema: o.schema, strict: false } } };
    case "tool":
      return {
        tools: [{ type: "function", function: { name: o.name, description: TOOL_DESCRIPTION, parameters: o.schema } }],
        tool_choice: { type: "function", function: { name: o.name } },
      };
    case "text":
      return {};
  }
};

const statusOf = (e: unknown): number | undefined => {
  for (let c: unknown = e; typeof c === "object" && c !== null; c = (c as { cause?: unknown }).cause) {
    const status = (c as { status?: unknown }).status;
    if (typeof status === "number") return status;
  }
  return undefined;
};

const messageOf = (e: unknown): string => (e instanceof Error ? `${e.message} ${messageOf(e.cause)}` : "");

/** A context overflow is a 400 too, but no other way of asking would fit either. */
const CONTEXT_OVERFLOW = /context length|maximum context|context window|too many tokens|prompt is too long/i;

/** The server refused the request's response_format or forced tool (400 or 422), not the prompt itself. */
const refusedWay = (e: unknown): boolean => {
  // A prompt longer than the context is no refusal of the way asked: every way would fail the same.
  if (e instanceof ContextOverflow) return false;
  const status = statusOf(e);
  return (status === 400 || status === 422) && !CONTEXT_OVERFLOW.test(messageOf(e));
};

export interface OutputCall<T> {
  mode: StructuredOutputMode;
  baseURL: string;
  model: string;
  /** Config path named in errors, e.g. "llm.evolver". */
  where: string;
  output: OutputRequest;
  /** One call with these ChatOpenAI call options. */
  call: (options: OutputOptions) => Promise<T>;
  memory?: OutputMemory;
}

/**
 * The call in the first way of the plan the server accepts. Under `auto` a refusal moves on to the next way and
 * is remembered (it is the endpoint's answer, not a failure of the role); a chosen way that is refused throws.
 */
export const callWithOutput = <T>(o: OutputCall<T>): Promise<T> => {
  const memory = o.memory ?? sharedOutputMemory;
  const plan = outputPlan(o.mode, memory.get(o.baseURL, o.model));
  const attempt = async (i: number): Promise<T> => {
    const way = plan[i]!;
    try {
      const answer = await o.call(outputOptions(way, o.output));
      if (o.mode === "auto") memory.set(o.baseURL, o.model, way);
      return answer;
    } catch (e) {
      if (!refusedWay(e) || way === "text") throw e;
      if (o.mode !== "auto") {
        const why = e instanceof Error ? e.message : String(e);
        throw new ConfigError(`${o.where}.structuredOutput: ${o.baseURL} refused ${way} for ${o.model} (got ${why}); set ${o.where}.structuredOutput: auto`);
      }
      memory.set(o.baseURL, o.model, plan[i + 1]!);
      return attempt(i + 1);
    }
  };
  return attempt(0);
};
