/**
 * Quirk switches for the fake OpenAI server (fake-openai-server.ts): the ways real local servers (vLLM, Ollama,
 * llama.cpp, LM Studio, LiteLLM) differ from OpenAI's wire protocol, one switch each, set per script item.
 * The server calls three hooks: `quirkError` before answering, `quirkItem` on the item, `quirkCompletion` /
 * `quirkChunks` on the answer it built.
 */
export interface Quirks {
  /**
   * The tool calls are written into the content as text, finish_reason "stop" (vLLM without a tool parser,
   * llama.cpp without --jinja): "hermes" `<tool_call>{…}</tool_call>`, "broken" an opened tag with no JSON.
   */
  textToolCalls?: "hermes" | "broken";
  /** `<think>…</think>` with this text before the content (a reasoning model without a reasoning parser). */
  think?: string;
  /** The reasoning in a separate field of the message (vLLM's and llama.cpp's reasoning parsers). */
  reasoning?: { field: "reasoning_content" | "reasoning"; text: string };
  /** No `usage` in the answer (older Ollama streams, some proxies). */
  noUsage?: boolean;
  /** The tool-call arguments as a JSON object, not a string (some llama.cpp builds). */
  objectArgs?: boolean;
  /** This text after the JSON arguments. */
  trailingArgs?: string;
  /** The arguments JSON-encoded twice: a JSON string holding the JSON text. */
  doubleEncodedArgs?: boolean;
  /** finish_reason "length": the answer was cut at the output cap. */
  finishLength?: boolean;
  /** A 400 saying the request is longer than the context, as this server words it. */
  contextOverflow?: "vllm" | "llama.cpp" | "openai";
  /** A 400 with the error at the top level of the body, as vLLM before 0.10.1 sends it. */
  topLevelError?: string;
  /** Tool calls without ids. */
  noToolCallIds?: boolean;
}

type Call = { name: string; args?: unknown; id?: string };
type Item = { text?: string; toolCalls?: Call[]; quirks?: Quirks };

const OVERFLOW: Record<NonNullable<Quirks["contextOverflow"]>, unknown> = {
  vllm: {
    object: "error",
    message:
      "This model's maximum context length is 4096 tokens. However, you requested 8292 tokens (100 in the messages, 8192 in the completion). Please reduce the length of the messages or completion.",
    type: "BadRequestError",
    param: null,
    code: 400,
  },
  "llama.cpp": {
    error: {
      code: 400,
      message: "the request exceeds the available context size, try increasing it",
      type: "exceed_context_size_error",
      n_prompt_tokens: 5000,
      n_ctx: 4096,
    },
  },
  openai: {
    error: {
      message:
        "This model's maximum context length is 128000 tokens. However, your messages resulted in 130512 tokens. Please reduce the length of the messages.",
      type: "invalid_request_error",
      param: "messages",
      code: "context_length_exceeded",
    },
  },
};

/** An error answer instead of a completion, or undefined. */
export const quirkError = (q: Quirks | undefined): { status: number; body: unknown } | undefined => {
  if (q?.contextOverflow) return { status: 400, body: OVERFLOW[q.contextOverflow] };
  if (q?.topLevelError !== undefined)
    return { status: 400, body: { object: "error", message: q.topLevelError, type: "BadRequestError", param: null, code: 400 } };
  return undefined;
};

/** The item as the quirky server would answer it: tool calls moved into the text, `<think>` before it. */
export const quirkItem = <T extends Item>(item: T): T => {
  const q = item.quirks;
  if (!q) return item;
  let text = item.text ?? "";
  let toolCalls = item.toolCalls;
  if (q.textToolCalls === "hermes") {
    text += (toolCalls ?? []).map((c) => `\n<tool_call>\n${JSON.stringify({ name: c.name, arguments: c.args ?? {} })}\n</tool_call>`).join("");
    toolCalls = undefined;
  } else if (q.textToolCalls === "broken") {
    text += `\n<tool_call>\n{"name": "${toolCalls?.[0]?.name ?? "f"}", "arguments": {"x": 1,`;
    toolCalls = undefined;
  }
  if (q.think !== undefined) text = `<think>${q.think}</think>\n${text}`;
  return { ...item, text, toolCalls };
};

const argsOf = (q: Quirks, json: string): unknown =>
  q.objectArgs ? JSON.parse(json) : q.doubleEncodedArgs ? JSON.stringify(json) : q.trailingArgs !== undefined ? `${json}${q.trailingArgs}` : json;

type Rec = Record<string, unknown>;

/** A non-streamed completion changed by the quirks. */
export const quirkCompletion = (q: Quirks | undefined, completion: Rec): Rec => {
  if (!q) return completion;
  const out: Rec = { ...completion };
  if (q.noUsage) delete out.usage;
  out.choices = (completion.choices as Rec[]).map((choice) => {
    const message = { ...(choice.message as Rec) };
    if (q.reasoning) message[q.reasoning.field] = q.reasoning.text;
    if (Array.isArray(message.tool_calls)) {
      message.tool_calls = (message.tool_calls as Rec[]).map((call) => {
        const fn = call.function as { name: string; arguments: string };
        const { id: _id, ...rest } = call;
        return { ...(q.noToolCallIds ? rest : call), function: { ...fn, arguments: argsOf(q, fn.arguments) } };
      });
    }
    return { ...choice, message, ...(q.finishLength ? { finish_reason: "length" } : {}) };
  });
  return out;
};

/** A stream's chunks changed by the quirks: reasoning deltas first, no usage chunk, ids dropped, the last finish_reason "length". */
export const quirkChunks = (q: Quirks | undefined, chunks: Rec[]): Rec[] => {
  if (!q) return chunks;
  let out = q.noUsage ? chunks.filter((c) => !("usage" in c)) : chunks;
  out = out.map((c) => {
    const choices = (c.choices as Rec[]).map((choice) => {
      const delta = { ...(choice.delta as Rec) };
      if (q.noToolCallIds && Array.isArray(delta.tool_calls)) delta.tool_calls = (delta.tool_calls as Rec[]).map(({ id: _id, ...rest }) => rest);
      return { ...choice, delta, ...(q.finishLength && choice.finish_reason ? { finish_reason: "length" } : {}) };
    });
    return { ...c, choices };
  });
  if (q.reasoning) {
    const [first, ...rest] = out;
    const base = { ...first!, choices: [{ index: 0, delta: { [q.reasoning.field]: "" }, finish_reason: null }] };
    const half = Math.ceil(q.reasoning.text.length / 2);
    const pieces = [q.reasoning.text.slice(0, half), q.reasoning.text.slice(half)].map((t) => ({
      ...base,
      choices: [{ index: 0, delta: { [q.reasoning!.field]: t }, finish_reason: null }],
    }));
    out = [first!, ...pieces, ...rest];
  }
  return out;
};
