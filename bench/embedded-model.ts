/**
 * An embedded model (src/llm/llama-cpp/, `provider: llama-cpp`) on this machine's CPU: load time and memory,
 * prompt and generation tokens/s, how often a grammar-held tool call parses under sampling, and whether
 * conversations sharing one model are faster one at a time (`parallel: 1`) or batched through node-llama-cpp's
 * context sequences (`parallel: N`). The model is a tiny one with random weights that test/support/tiny-gguf.ts
 * writes (no weights are downloaded), so its speeds bound hexa's overhead, not a real model's speed.
 * It also measures hexa's own overhead: the same prompt answered through hexa's chat model (LlamaCppChatModel, as a
 * role calls it) and through node-llama-cpp alone (LlamaChat on the same loaded model and context), paired.
 * `--model FILE` measures a GGUF of the user's instead of the generated one.
 * Run: npm run bench:embedded-model -- [--model FILE] [--embd 256] [--layers 4] [--threads 1,2] [--conversations 4] [--repeats 3] [--calls 20] [--pairs 31] [--write-page]
 */
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HumanMessage, SystemMessage } from "@langchain/core/messages";
import { z } from "zod";
import { LlamaCppChatModel } from "../src/llm/llama-cpp/chat-model.ts";
import { LlamaCppModelConfig } from "../src/llm/llama-cpp/config.ts";
import { LlamaModels } from "../src/llm/llama-cpp/loaded-models.ts";
import { overheadRows, OVERHEAD_HEAD } from "./embedded-overhead.ts";

import { writeTinyGguf } from "../test/support/tiny-gguf.ts";
import { failFlag, intFlag, parseFlags } from "./flags.ts";
import { median } from "./harness.ts";
import { recordPage } from "./page.ts";

recordPage("embedded-model");

const SCRIPT = "bench/embedded-model.ts";
const flags = parseFlags(SCRIPT, { model: "", embd: "256", layers: "4", threads: "1,2", conversations: "4", repeats: "3", calls: "20", pairs: "31" });
const EMBD = intFlag(SCRIPT, "embd", flags.embd, 8);
const LAYERS = intFlag(SCRIPT, "layers", flags.layers);
const THREADS = flags.threads.split(",").map((t) => intFlag(SCRIPT, "threads", t.trim()));
const CONVERSATIONS = intFlag(SCRIPT, "conversations", flags.conversations, 2);
const REPEATS = intFlag(SCRIPT, "repeats", flags.repeats);
const CALLS = intFlag(SCRIPT, "calls", flags.calls);
const PAIRS = intFlag(SCRIPT, "pairs", flags.pairs);
if (flags.model && !existsSync(flags.model)) failFlag(`${SCRIPT}: --model: no file at ${JSON.stringify(flags.model)}`);
if (EMBD % 4) failFlag(`${SCRIPT}: --embd must be a multiple of 4 (4 attention heads; got ${EMBD})`);

/** The speed probe's prompt and answer; a conversation's (byte-level vocabulary: one token per byte). */
const PROBE = { prompt: 512, answer: 64 };
const CONVERSATION = { prompt: 256, answer: 32 };
const CONTEXT = 2048;
/** The overhead probe: answers capped at 1 token (the prompt's time) and at `answer` tokens. */
const PROBE_OVERHEAD = { answer: 128 };
const MiB = 2 ** 20;

const dir = mkdtempSync(join(tmpdir(), "hexa-bench-embedded-"));
const path = flags.model || writeTinyGguf(dir, { embd: EMBD, layers: LAYERS, contextLength: 4096, name: "bench-random" });
const models = new LlamaModels();
const configOf = (threads: number, parallel: number, more: Record<string, unknown> = {}) =>
  LlamaCppModelConfig.parse({
    provider: "llama-cpp",
    model: path,
    gpu: false,
    threads,
    parallel,
    contextSize: CONTEXT,
    temperature: 0,
    maxOutputTokens: CONVERSATION.answer,
    ...more,
  });

const fmt = (n: number, digits = 0) => n.toLocaleString("en", { minimumFractionDigits: digits, maximumFractionDigits: digits });
type Shared = Awaited<ReturnType<LlamaModels["acquire"]>>;

/** node-llama-cpp's native binding loaded alone (once per process; the model load below then finds it loaded). */
const bindingMs = async (): Promise<number> => {
  const { getLlama, LlamaLogLevel } = await import("node-llama-cpp");
  const t0 = performance.now();
  const llama = await getLlama({ gpu: false, build: "never", logLevel: LlamaLogLevel.error });
  const ms = performance.now() - t0;
  await llama.dispose();
  return ms;
};

/** Load (file checked, weights, context) and the process's resident memory before and after it. */
const load = async () => {
  const rssBefore = process.memoryUsage.rss();
  const t0 = performance.now();
  await models.acquire(configOf(THREADS[0]!, 1), "bench");
  return { ms: performance.now() - t0, rssBefore, rssAfter: process.memoryUsage.rss() };
};

/** Prompt evaluation and greedy generation, each the median of REPEATS on an emptied sequence. */
const speeds = async (shared: Shared) => {
  const prompt = shared.model.tokenize("The quick brown fox jumps over the lazy dog. ".repeat(32)).slice(0, PROBE.prompt);
  const runs = await shared.withSequence(async (sequence) => {
    const out: Array<{ prompt: number; generation: number }> = [];
    for (let r = 0; r < REPEATS; r++) {
      const t0 = performance.now();
      await sequence.evaluateWithoutGeneratingNewTokens(prompt);
      const t1 = performance.now();
      let n = 0;
      for await (const _ of sequence.evaluate(prompt.slice(-1), { temperature: 0 })) if (++n >= PROBE.answer) break;
      const t2 = performance.now();
      out.push({ prompt: (prompt.length * 1000) / (t1 - t0), generation: (n * 1000) / (t2 - t1) });
      await sequence.clearHistory();
    }
    return out;
  });
  return { prompt: median(runs.map((r) => r.prompt)), generation: median(runs.map((r) => r.generation)) };
};

const MOVE = z.object({ direction: z.enum(["left", "right", "up", "down"]), steps: z.number().int(), note: z.string() });

/** Grammar-held tool calls at temperature 1 (a seed per call): how many come back as one call the schema accepts. */
const parseRate = async (threads: number): Promise<number> => {
  let parsed = 0;
  for (let seed = 0; seed < CALLS; seed++) {
    const config = configOf(threads, 1, { temperature: 1, seed, maxOutputTokens: 96 });
    const model = new LlamaCppChatModel({ config, models, where: "bench" }).bindTools([{ name: "move", description: "Move the marker.", schema: MOVE }]);
    const answer = await model.invoke([new SystemMessage("You move a marker on a grid."), new HumanMessage(`Move it ${seed} steps in any direction.`)]);
    const calls = answer.tool_calls ?? [];
    if (calls.length === 1 && calls[0]!.name === "move" && MOVE.safeParse(calls[0]!.args).success) parsed++;
  }
  return parsed;
};

/**
 * CONVERSATIONS answers asked at once through hexa's chat model on one loaded model, `parallel` sequences on its
 * context: each a distinct prompt and an answer to the cap (the random model never stops early). Wall time of all
 * of them, the median of REPEATS.
 */
const throughput = async (threads: number, parallel: number): Promise<{ ms: number; tokens: number }> => {
  const chat = new LlamaCppChatModel({ config: configOf(threads, parallel), models, where: "bench" });
  await chat.invoke([new HumanMessage("warm up")]);
  const walls: number[] = [];
  let tokens = 0;
  for (let r = 0; r < REPEATS; r++) {
    const t0 = performance.now();
    const answers = await Promise.all(
      Array.from({ length: CONVERSATIONS }, (_, i) =>
        chat.invoke([new SystemMessage(`Conversation ${i}, repeat ${r}.`), new HumanMessage(`${i} `.repeat(CONVERSATION.prompt / 2 - 16))]),
      ),
    );
    walls.push(performance.now() - t0);
    tokens = answers.reduce((n, a) => n + (a.usage_metadata?.total_tokens ?? 0), 0);
  }
  return { ms: median(walls), tokens };
};

/** One row per thread count: the speeds, the parse rate, and the conversations serialised against batched. */
const threadRow = async (threads: number): Promise<string> => {
  const speed = await speeds(await models.acquire(configOf(threads, 1), "bench"));
  const parsed = await parseRate(threads);
  const serial = await throughput(threads, 1);
  const batched = await throughput(threads, CONVERSATIONS);
  const per = (t: { ms: number; tokens: number }) => `${fmt(t.ms)} ms, ${fmt((t.tokens * 1000) / t.ms)} tokens/s`;
  const faster = batched.ms < serial.ms ? `batched, ${fmt(serial.ms / batched.ms, 2)} ×` : `serialised, ${fmt(batched.ms / serial.ms, 2)} ×`;
  return `| ${threads} | ${fmt(speed.prompt)} | ${fmt(speed.generation)} | ${parsed} / ${CALLS} | ${per(serial)} | ${per(batched)} | ${faster} |`;
};

try {
  const bytes = statSync(path).size;
  process.stdout.write(
    flags.model
      ? `model: ${flags.model}, ${fmt(bytes / MiB, 1)} MiB, CPU only\n\n`
      : `model: a tiny llama-architecture GGUF with random weights, generated by test/support/tiny-gguf.ts: ${EMBD} wide, ${LAYERS} layer(s), byte-level vocabulary, f32, ${fmt(bytes / MiB, 1)} MiB, CPU only\nits speeds show hexa's and llama.cpp's overhead on this machine, not a real model's (--model FILE measures one)\n\n`,
  );
  const binding = await bindingMs();
  const loaded = await load();
  process.stdout.write(
    [
      `node-llama-cpp's binding, first load in the process: ${fmt(binding)} ms`,
      `model load after it (a new Llama instance, the file checked, weights, a context of ${fmt(CONTEXT)} tokens): ${fmt(loaded.ms)} ms`,
      `process RSS before and after the model load: ${fmt(loaded.rssBefore / MiB)} → ${fmt(loaded.rssAfter / MiB)} MiB`,
      "",
      `Per thread count: prompt of ${PROBE.prompt} tokens and greedy generation of ${PROBE.answer} (tokens/s, median of ${REPEATS}); grammar-held tool calls at temperature 1, a seed each, that parse under the tool's schema; ${CONVERSATIONS} conversations asked at once (each ~${CONVERSATION.prompt} prompt tokens, ${CONVERSATION.answer} answer tokens) through hexa's chat model, serialised (parallel: 1) or batched on ${CONVERSATIONS} context sequences (parallel: ${CONVERSATIONS}), wall time median of ${REPEATS}:`,
      "",
      "| threads | prompt tokens/s | generation tokens/s | tool calls parsed | serialised | batched | faster |",
      "| --- | --- | --- | --- | --- | --- | --- |",
    ].join("\n") + "\n",
  );
  for (const threads of THREADS) process.stdout.write(`${await threadRow(threads)}\n`);
  process.stdout.write(`\n${OVERHEAD_HEAD(PAIRS, PROBE_OVERHEAD)}\n`);
  for (const threads of THREADS) {
    const config = configOf(threads, 1);
    const rows = await overheadRows({ models, config: (more) => LlamaCppModelConfig.parse({ ...config, ...more }), pairs: PAIRS, cap: PROBE_OVERHEAD.answer });
    for (const row of rows) process.stdout.write(`| ${threads} ${row}\n`);
  }
} finally {
  await models.close();
  rmSync(dir, { recursive: true, force: true });
}
