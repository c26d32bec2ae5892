/**
 * hexa's overhead on an embedded model (bench/embedded-model.ts): one prompt answered through hexa's chat model
 * (LlamaCppChatModel, as a role calls it: langchain's invoke, the history rendered, the prompt's tokens counted, the
 * grammar looked up, the answer parsed) and through node-llama-cpp alone (a LlamaChat on the same loaded model and
 * context, given the same history and the same compiled grammar, made before the clock starts). The two are timed
 * in pairs, alternating which goes first, each on an emptied sequence, greedy, at the same thread count.
 */
import { type BaseMessage, HumanMessage, SystemMessage } from "@langchain/core/messages";
import type { ChatHistoryItem, LlamaContextSequence, LlamaGrammar } from "node-llama-cpp";
import { z } from "zod";
import { LlamaCppChatModel } from "../src/llm/llama-cpp/chat-model.ts";
import type { LlamaCppModelConfig } from "../src/llm/llama-cpp/config.ts";
import { toChatHistory } from "../src/llm/llama-cpp/history.ts";
import { type FunctionTool, toolCallSchema } from "../src/llm/llama-cpp/json-grammar.ts";
import type { LlamaModels, SharedModel } from "../src/llm/llama-cpp/loaded-models.ts";
import { median, percentile } from "./harness.ts";

export interface OverheadSetup {
  models: LlamaModels;
  /** The role's config (threads, context, greedy) with these fields replaced. */
  config: (more: Partial<LlamaCppModelConfig>) => LlamaCppModelConfig;
  pairs: number;
  /** Tokens a capped answer may take. */
  cap: number;
}

const MOVE = z.object({ direction: z.enum(["left", "right", "up", "down"]), steps: z.number().int(), note: z.string() });
const TOOL: FunctionTool = {
  type: "function",
  function: { name: "move", description: "Move the marker.", parameters: z.toJSONSchema(MOVE) as Record<string, unknown> },
};
const MESSAGES: BaseMessage[] = [
  new SystemMessage("You move a marker on a grid. Read the board and choose one move."),
  new HumanMessage(`The board:\n${"..#...#...\n".repeat(16)}Move the marker towards the lower right corner.`),
];

/** One timed answer: wall time, and the prompt's and the answer's tokens. */
interface Timed {
  ms: number;
  input: number;
  output: number;
}

const fmt = (n: number, digits = 0) => n.toLocaleString("en", { minimumFractionDigits: digits, maximumFractionDigits: digits });

const emptied = (shared: SharedModel) => shared.withSequence((s) => s.clearHistory());

const throughHexa = async (s: OverheadSetup, tools: boolean, cap: number): Promise<Timed> => {
  const chat = new LlamaCppChatModel({ config: s.config({ maxOutputTokens: cap }), models: s.models, where: "bench" });
  const model = tools ? chat.bindTools([{ name: TOOL.function.name, description: TOOL.function.description!, schema: MOVE }]) : chat;
  const t0 = performance.now();
  const answer = await model.invoke(MESSAGES);
  const ms = performance.now() - t0;
  return { ms, input: answer.usage_metadata!.input_tokens, output: answer.usage_metadata!.output_tokens };
};

const alone = async (sequence: LlamaContextSequence, shared: SharedModel, history: ChatHistoryItem[], grammar: LlamaGrammar | undefined, cap: number) => {
  const { LlamaChat } = await import("node-llama-cpp");
  const before = sequence.tokenMeter.getState();
  const t0 = performance.now();
  const chat = new LlamaChat({ contextSequence: sequence, chatWrapper: shared.chatWrapper });
  await chat.generateResponse(history, { ...(grammar ? { grammar } : {}), maxTokens: cap, temperature: 0 });
  chat.dispose({ disposeSequence: false });
  return { ms: performance.now() - t0, output: sequence.tokenMeter.diff(before).usedOutputTokens };
};

/** Medians over the pairs of each path's answers capped at 1 token and at `cap`. */
const measure = async (s: OverheadSetup, tools: boolean) => {
  const shared = await s.models.acquire(s.config({}), "bench");
  const history = toChatHistory(MESSAGES, tools ? { tools: [TOOL] } : undefined);
  const grammar = tools ? await shared.llama.createGrammarForJsonSchema(toolCallSchema([TOOL]) as { const: null }) : undefined;
  const runs = { hexa: new Map<number, Timed[]>(), alone: new Map<number, Timed[]>() };
  for (let pair = 0; pair < s.pairs; pair++)
    for (const cap of [1, s.cap]) {
      const order = pair % 2 ? (["alone", "hexa"] as const) : (["hexa", "alone"] as const);
      for (const path of order) {
        await emptied(shared);
        const timed =
          path === "hexa" ? await throughHexa(s, tools, cap) : { input: 0, ...(await shared.withSequence((q) => alone(q, shared, history, grammar, cap))) };
        runs[path].set(cap, [...(runs[path].get(cap) ?? []), timed]);
      }
    }
  // The same history is rendered for both: its token count is hexa's (counted by the model's tokenizer).
  const input = runs.hexa.get(1)![0]!.input;
  const speeds = (of: Map<number, Timed[]>) => {
    const m = (cap: number, k: "ms" | "output") => median(of.get(cap)!.map((t) => t[k]));
    return {
      prompt: (input * 1000) / m(1, "ms"),
      generation: ((m(s.cap, "output") - m(1, "output")) * 1000) / (m(s.cap, "ms") - m(1, "ms")),
      tokens: m(s.cap, "output"),
    };
  };
  const walls = (path: "hexa" | "alone") => runs[path].get(s.cap)!.map((t) => t.ms);
  const alones = walls("alone");
  const ratios = walls("hexa").map((ms, i) => ms / alones[i]!);
  const wallRatio = { median: median(ratios), q1: percentile(ratios, 0.25), q3: percentile(ratios, 0.75) };
  return { input, hexa: speeds(runs.hexa), alone: speeds(runs.alone), wallRatio };
};

export const OVERHEAD_HEAD = (pairs: number, probe: { answer: number }): string =>
  [
    `hexa's overhead: one prompt answered through hexa's chat model (LlamaCppChatModel, as a role calls it) and through node-llama-cpp alone (LlamaChat on the same loaded model and context, the same rendered history, the same compiled grammar), ${pairs} pairs, alternating which goes first, each on an emptied sequence, greedy. Prompt tokens/s: the prompt's tokens over the wall time of an answer capped at 1 token; generation tokens/s: the extra tokens over the extra wall time of an answer capped at ${probe.answer} (medians over the pairs); ratio: hexa ÷ alone; wall ratio: the median over the pairs of hexa's wall time ÷ alone's for the answer capped at ${probe.answer} (above 1: hexa slower), and its quartiles over the pairs (the spread the machine's load gives). "plain": no grammar; "tool call": the tool-call grammar hexa holds an actor's answer to:`,
    "",
    "| threads | answer | prompt tokens | prompt tokens/s hexa | alone | ratio | tokens generated | generation tokens/s hexa | alone | ratio | wall ratio (quartiles) |",
    "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |",
  ].join("\n");

/** Two table rows (after the threads cell): a plain answer and a grammar-held tool call. */
export const overheadRows = async (s: OverheadSetup): Promise<string[]> => {
  const rows: string[] = [];
  for (const tools of [false, true]) {
    const r = await measure(s, tools);
    const ratio = (a: number, b: number) => (Number.isFinite(a / b) && a > 0 && b > 0 ? fmt(a / b, 2) : "n/a");
    const gen = (v: number) => (Number.isFinite(v) && v > 0 ? fmt(v) : "n/a");
    rows.push(
      `| ${tools ? "tool call" : "plain"} | ${r.input} | ${fmt(r.hexa.prompt)} | ${fmt(r.alone.prompt)} | ${ratio(r.hexa.prompt, r.alone.prompt)} | ${r.hexa.tokens} / ${r.alone.tokens} | ${gen(r.hexa.generation)} | ${gen(r.alone.generation)} | ${ratio(r.hexa.generation, r.alone.generation)} | ${fmt(r.wallRatio.median, 2)} (${fmt(r.wallRatio.q1, 2)}–${fmt(r.wallRatio.q3, 2)}) |`,
    );
  }
  return rows;
};
