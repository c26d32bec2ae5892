import { z } from "zod";
import { ConfigError, HexaError } from "../errors.ts";
import { costUsd, priceOf } from "./accounting.ts";
import type { ChatModel, Message, ToolSpec } from "./chat-model.ts";
import type { PriceTable } from "./config.ts";

/** A run's (or a compare grid's) spend cap; either limit, both, or none. */
export const Budget = z
  .strictObject({
    usd: z.number().positive().optional().describe("most USD the run may spend on model calls (cache hits cost 0)"),
    tokens: z.number().int().positive().optional().describe("most tokens (input + output, cache hits excluded) the run may use"),
  })
  .prefault({})
  .describe("spend cap: the run stops cleanly before a call that would cross it, and resumes with a raised cap");
export type Budget = z.infer<typeof Budget>;

export interface Spend {
  usd: number;
  tokens: number;
  calls: number;
}

export const NO_SPEND: Spend = { usd: 0, tokens: 0, calls: 0 };

/** The next call would cross the cap: the run stops here (nothing finished is lost) and resumes with a raised cap. */
export class BudgetExceeded extends HexaError {}

/** Characters per token of English prose and JSON, for estimates only (the bill uses the server's counts). */
export const CHARS_PER_TOKEN = 4;
/** Output tokens assumed for a role's first call, before any answer has been seen. */
const FIRST_OUTPUT_GUESS = 800;

export const formatUsd = (usd: number): string => `$${usd < 10 ? usd.toFixed(4) : usd.toFixed(2)}`;

const capText = (b: Budget): string =>
  [b.usd !== undefined ? `budget.usd ${formatUsd(b.usd)}` : "", b.tokens !== undefined ? `budget.tokens ${b.tokens.toLocaleString("en")}` : ""].filter(Boolean).join(" and ");

export const hasCap = (b: Budget): boolean => b.usd !== undefined || b.tokens !== undefined;

/** budget.usd needs a price for every model it will pay for; an unpriced one would be spent without count. */
export const checkPriced = (b: Budget, prices: PriceTable, models: ReadonlyArray<{ where: string; model: string }>): void => {
  if (b.usd === undefined) return;
  for (const m of models) {
    if (!priceOf(prices, m.model)) {
      throw new ConfigError(`budget.usd: ${m.where}.model ${JSON.stringify(m.model)} has no price in llm.prices, so its spend cannot be counted; add llm.prices.${m.model}: {input, cachedInput, output} (USD per 1M tokens) or drop budget.usd (budget.tokens needs no price)`);
    }
  }
};

/**
 * One spend cap shared by every role of a run. `before` is asked ahead of each call that would reach the
 * endpoint (a response-cache hit never asks): it estimates the call from its messages and the role's mean
 * answer so far, and refuses when the estimate would take the spend over the cap. `after` adds what the server
 * reported.
 */
export class SpendGate {
  private spent: Spend;
  private readonly outputs = new Map<string, { sum: number; n: number }>();
  private refusal: string | undefined;

  constructor(
    readonly cap: Budget,
    private readonly prices: PriceTable,
    spentBefore: Spend = NO_SPEND,
  ) {
    this.spent = { ...spentBefore };
  }

  total(): Spend {
    return { ...this.spent };
  }

  /**
   * Output sizes of calls made before this process (recorded usage of the same model), so that the first call
   * is estimated from them rather than from a guess: a small cap left to a resumed run or a grid's later run
   * would otherwise let one call through that costs far more than the cap allows.
   */
  learn(where: string, outputs: readonly number[]): void {
    if (!outputs.length) return;
    const o = this.outputs.get(where) ?? { sum: 0, n: 0 };
    this.outputs.set(where, { sum: o.sum + outputs.reduce((a, b) => a + b, 0), n: o.n + outputs.length });
  }

  estimate(where: string, model: string, messages: readonly Message[], tools: readonly ToolSpec[], maxOutput: number): { usd: number; tokens: number } {
    const chars = messages.reduce((n, m) => n + m.content.length + ("toolCalls" in m ? JSON.stringify(m.toolCalls).length : 0), 0) + JSON.stringify(tools).length;
    const input = Math.ceil(chars / CHARS_PER_TOKEN);
    const seen = this.outputs.get(where);
    const output = Math.min(maxOutput, seen ? Math.ceil(seen.sum / seen.n) : FIRST_OUTPUT_GUESS);
    const price = priceOf(this.prices, model);
    return { tokens: input + output, usd: price ? costUsd(price, { input, output, cached: 0 }) : 0 };
  }

  before(where: string, next: { usd: number; tokens: number }): void {
    // Once refused, every later call is too: episodes in flight stop at their next call, not after a smaller one.
    if (this.refusal) throw new BudgetExceeded(this.refusal);
    const s = this.spent;
    const overUsd = this.cap.usd !== undefined && s.usd + next.usd > this.cap.usd;
    const overTokens = this.cap.tokens !== undefined && s.tokens + next.tokens > this.cap.tokens;
    if (!overUsd && !overTokens) return;
    this.refusal =
      `stopped: budget — the next ${where} call (about ${formatUsd(next.usd)}, ${next.tokens.toLocaleString("en")} tokens) would cross ${capText(this.cap)}; ` +
        `spent ${formatUsd(s.usd)} and ${s.tokens.toLocaleString("en")} tokens on ${s.calls} call(s)`;
    throw new BudgetExceeded(this.refusal);
  }

  after(where: string, turn: { model: string; usage: { input: number; output: number; cached: number } }): void {
    const price = priceOf(this.prices, turn.model);
    const usd = price ? costUsd(price, turn.usage) : 0;
    this.spent = { usd: this.spent.usd + usd, tokens: this.spent.tokens + turn.usage.input + turn.usage.output, calls: this.spent.calls + 1 };
    const o = this.outputs.get(where) ?? { sum: 0, n: 0 };
    this.outputs.set(where, { sum: o.sum + turn.usage.output, n: o.n + 1 });
    if (!price && this.cap.usd !== undefined) {
      throw new ConfigError(`budget.usd: the endpoint of ${where} answered as model ${JSON.stringify(turn.model)}, which has no price in llm.prices, so its spend cannot be counted; add llm.prices.${turn.model}`);
    }
  }
}

/** The model behind the gate: each call is estimated and refused before it is sent when it would cross the cap. */
export const withBudget = (inner: ChatModel, gate: SpendGate, o: { where: string; model: string; maxOutputTokens: number }): ChatModel => ({
  name: inner.name,
  invoke: async (messages, tools) => {
    gate.before(o.where, gate.estimate(o.where, o.model, messages, tools, o.maxOutputTokens));
    const turn = await inner.invoke(messages, tools);
    gate.after(o.where, turn);
    return turn;
  },
});
