import { sha256Hex } from "../util/canonical-json.ts";
import type { AssistantTurn, Message, ToolCall, ToolSpec } from "./chat-model.ts";
import type { LangchainTurn } from "./langchain-messages.ts";
import { textToolCalls } from "./text-tool-calls.ts";
import { splitThink } from "./think.ts";
import { CHARS_PER_TOKEN, estimateInputTokens, estimateOutputTokens } from "./token-estimate.ts";
import { parseToolArgs } from "./tool-args.ts";
import type { WireRecord } from "./wire-check.ts";

/** A server quirk worth telling the user once per model: what kind, and the message (`<where>: <what>; <fix>`). */
export interface Notice {
  kind: "text_tool_call" | "unreadable_tool_call" | "think_in_content" | "args_repaired" | "no_usage" | "input_truncated" | "cut_at_cap";
  message: string;
}

export interface AnswerContext {
  /** Config path of the role, e.g. "llm.actor". */
  where: string;
  messages: readonly Message[];
  tools: readonly ToolSpec[];
  maxOutputTokens: number | null;
  /** The last answer on the wire (absent: nothing more is known than langchain's reading). */
  wire?: WireRecord | undefined;
  notice: (n: Notice) => void;
}

const TOOL_PARSER_FIX =
  "start vLLM with --enable-auto-tool-choice --tool-call-parser <hermes for Qwen/Hermes, llama3_json, mistral, …>, llama.cpp's server with --jinja";

/** Below this many estimated input tokens a low count says nothing: templates and tokenizers differ. */
const TRUNCATION_MIN_TOKENS = 1000;
/** A server that counted under this share of hexa's estimate has most likely cut the prompt. */
const TRUNCATION_SHARE = 0.5;

/** An id for a call the server sent without one: unique per conversation, and the same on a replay (the response cache keys on it). */
const callId = (messages: readonly Message[], i: number, call: Pick<ToolCall, "name" | "rawArgs">): string =>
  `call_${sha256Hex({ messages, i, name: call.name, rawArgs: call.rawArgs }).slice(0, 24)}`;

/**
 * The turn as hexa uses it, from langchain's reading and the wire: `<think>` moved out of the text, reasoning
 * fields kept, tool calls left as text read (or said unreadable), missing ids made, an answer cut at the output
 * cap said so, and missing usage estimated. A well-behaved server's answer passes unchanged.
 */
export const readAnswer = (raw: LangchainTurn, c: AnswerContext): Omit<AssistantTurn, "latencyMs" | "fromCache"> => {
  const split = splitThink(raw.text);
  if (split.think) {
    c.notice({
      kind: "think_in_content",
      message: `${c.where}: the answer held <think>…</think> in its content (a reasoning model served without a reasoning parser); hexa keeps it as the thought and does not send it back; start vLLM with --reasoning-parser <deepseek_r1, qwen3, …> or llama.cpp with --reasoning-format deepseek`,
    });
  }
  let text = split.text;
  let problem: string | undefined;
  let calls: Array<ToolCall & { repaired?: string }> = raw.toolCalls;
  if (calls.length === 0 && c.tools.length > 0) {
    const found = textToolCalls(
      text,
      c.tools.map((t) => t.name),
    );
    if (found.unreadable !== undefined) {
      problem = `your tool call came as text that could not be read (got ${found.unreadable}); make the call again as a tool call with one JSON object of arguments`;
      c.notice({
        kind: "unreadable_tool_call",
        message: `${c.where}: the server returned the tool call as text and it could not be read (got ${found.unreadable}); ${TOOL_PARSER_FIX}`,
      });
    } else if (found.calls.length > 0) {
      c.notice({
        kind: "text_tool_call",
        message: `${c.where}: the server returned the tool call as text in the content (finish_reason ${c.wire?.finishReason ?? "unknown"}); hexa read it as the call, but ${TOOL_PARSER_FIX}`,
      });
      calls = found.calls.map((call) => {
        const { repaired: _repaired, ...parsed } = parseToolArgs(call.name, call.args);
        return { id: "", name: call.name, ...parsed };
      });
    }
    text = found.text;
  }
  const repaired = calls.find((call) => call.repaired);
  if (repaired)
    c.notice({
      kind: "args_repaired",
      message: `${c.where}: ${repaired.name}: ${repaired.repaired}; hexa read them, but the server's tool-call parser is off (check the chat template or the parser flag)`,
    });
  const toolCalls: ToolCall[] = calls.map(({ repaired: _r, ...call }, i) => ({ ...call, id: call.id || callId(c.messages, i, call) }));

  if (c.wire?.finishReason === "length") {
    const cap = c.maxOutputTokens === null ? "the server's own output limit (no max output tokens sent)" : `max output tokens ${c.maxOutputTokens}`;
    const fix = c.maxOutputTokens === null ? `set ${c.where}.maxOutputTokens` : `raise ${c.where}.maxOutputTokens`;
    problem = `${c.where}: the answer was cut at ${cap} (finish_reason length); ${fix}, or answer more briefly`;
    c.notice({ kind: "cut_at_cap", message: problem });
  }
  const reasoning = [c.wire?.reasoning ?? "", split.think].filter(Boolean).join("\n\n");
  const turn = { ...raw, text, toolCalls, ...(reasoning ? { reasoning } : {}), ...(problem ? { problem } : {}) };

  const estimatedInput = estimateInputTokens(c.messages, c.tools);
  const reported = raw.usage.input + raw.usage.output > 0 && (c.wire === undefined || c.wire.sawUsage);
  if (!reported) {
    c.notice({
      kind: "no_usage",
      message: `${c.where}: the server reported no token usage; hexa counts its own estimate (${CHARS_PER_TOKEN} characters a token), marked estimated in usage records, for the spend cap and the totals; a server that sends usage (stream_options include_usage, a newer Ollama or proxy) gives exact counts`,
    });
    return { ...turn, usage: { input: estimatedInput, output: estimateOutputTokens(turn), cached: 0, estimated: true } };
  }
  if (estimatedInput >= TRUNCATION_MIN_TOKENS && raw.usage.input < TRUNCATION_SHARE * estimatedInput) {
    c.notice({
      kind: "input_truncated",
      message: `${c.where}: the server counted ${raw.usage.input} input tokens for a request hexa estimates at about ${estimatedInput}; it is probably cutting the prompt to a short context (Ollama's default num_ctx is 2048–4096); raise the server's context (Ollama: OLLAMA_CONTEXT_LENGTH or PARAMETER num_ctx in a Modelfile; llama.cpp: -c; vLLM: --max-model-len)`,
    });
  }
  return turn;
};
