/**
 * Tool calls a server left in the content as text: vLLM without --enable-auto-tool-choice/--tool-call-parser
 * and llama.cpp without --jinja return the model's own call syntax with finish_reason "stop". Read here: the
 * Hermes/Qwen form `<tool_call>{"name": …, "arguments": {…}}</tool_call>`, Mistral's `[TOOL_CALLS] [{…}]`, and an
 * answer that is nothing but `{"name": <a tool offered>, "arguments"|"parameters": {…}}` (Llama 3 JSON calls).
 */
interface TextCall {
  name: string;
  /** The arguments as written: an object, or a string holding JSON (tool-args.ts reads both). */
  args: unknown;
}

export interface TextCalls {
  calls: TextCall[];
  /** The content without the calls. */
  text: string;
  /** Call syntax that was found but could not be read (cut, not JSON, no name); undefined when none. */
  unreadable?: string;
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

const callOf = (v: unknown): TextCall | undefined => {
  if (!isRecord(v)) return undefined;
  const fn = isRecord(v.function) ? v.function : v;
  if (typeof fn.name !== "string" || !fn.name) return undefined;
  return { name: fn.name, args: fn.arguments ?? fn.parameters ?? {} };
};

const parse = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

const shown = (s: string) => JSON.stringify(s.length > 120 ? `${s.slice(0, 120)}…` : s);

const TAGGED = /<tool_call>([\s\S]*?)(?:<\/tool_call>|$)/gi;
const MISTRAL = /\[TOOL_CALLS\]\s*([\s\S]*)$/;
const FENCE = /^```(?:json)?\s*([\s\S]*?)```$/i;

/** The calls written as text in `content`; `toolNames` are the tools offered (none offered: nothing is read). */
export const textToolCalls = (content: string, toolNames: readonly string[]): TextCalls => {
  if (toolNames.length === 0) return { calls: [], text: content };
  if (/<tool_call>/i.test(content)) {
    const calls: TextCall[] = [];
    let unreadable: string | undefined;
    for (const m of content.matchAll(TAGGED)) {
      const body = (m[1] ?? "").trim();
      const value = parse(body);
      const list = Array.isArray(value) ? value : [value];
      const read = list.map(callOf);
      if (read.length && read.every((c): c is TextCall => c !== undefined)) calls.push(...read);
      else unreadable ??= body;
    }
    const text = content.replace(TAGGED, "").trim();
    return { calls: unreadable === undefined ? calls : [], text, ...(unreadable === undefined ? {} : { unreadable: shown(unreadable) }) };
  }
  const mistral = MISTRAL.exec(content);
  if (mistral) {
    const value = parse((mistral[1] ?? "").trim());
    const read = (Array.isArray(value) ? value : [value]).map(callOf);
    const text = content.slice(0, mistral.index).trim();
    if (read.length && read.every((c): c is TextCall => c !== undefined)) return { calls: read, text };
    return { calls: [], text, unreadable: shown((mistral[1] ?? "").trim()) };
  }
  const whole = content.trim();
  const body = FENCE.exec(whole)?.[1]?.trim() ?? whole;
  if (!body.startsWith("{")) return { calls: [], text: content };
  const value = parse(body);
  const call = callOf(value);
  const hasArgs = isRecord(value) && ("arguments" in value || "parameters" in value);
  if (call && hasArgs && toolNames.includes(call.name)) return { calls: [call], text: "" };
  return { calls: [], text: content };
};
