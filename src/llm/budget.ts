import { z } from "zod";
import { ConfigError, HexaError } from "../errors.ts";
import { costUsd, priceOf } from "./accounting.ts";
import type { Wire, Message, ToolSpec } from "./chat-model.ts";
import type { PriceTable } from "./config.ts";
import { estimateInputTokens } from "./token-estimate.ts";
import { memoryLedger, type Cost, type Spend, type SpendLedger } from "./spend-ledger.ts";

/** A run's (or a compare grid's) spend cap; either limit, both, or none. */
export const Budget = z
  .strictObject({
    usd: z.number().positive().optional().describe("most USD the run may spend on model calls (cache hits cost 0)"),
    tokens: z.number().int().positive().optional().describe("most tokens (input + output, cache hits excluded) the run may use"),
  })
  .prefault({})
  .describe("spend cap: the run stops cleanly before a call that would cross it, and resumes with a raised cap");
export type Budget = z.infer<typeof Budget>;

export type { Spend } from "./spend-ledger.ts";

export const NO_SPEND: Spend = { usd: 0, tokens: 0, calls: 0 };

/** The next call would cross the cap: the run stops here (nothing finished is lost) and resumes with a raised cap. */
export class BudgetExceeded extends HexaError {}

export { CHARS_PER_TOKEN } from "./token-estimate.ts";
/** Output tokens assumed for a role's first call, before any answer has been seen. */
const FIRST_OUTPUT_GUESS = 800;

export const formatUsd = (usd: number): string => `$${usd < 10 ? usd.toFixed(4) : usd.toFixed(2)}`;

const capText = (b: Budget): string =>
  [b.usd !== undefined ? `budget.usd ${formatUsd(b.usd)}` : "", b.tokens !== undefined ? `budget.tokens ${b.tokens.toLocaleString("en")}` : ""]
    .filter(Boolean)
    .join(" and ");

export const hasCap = (b: Budget): boolean => b.usd !== undefined || b.tokens !== undefined;

/** budget.usd needs a price for every model it will pay for; an unpriced one would be spent without count. */
export const checkPriced = (b: Budget, prices: PriceTable, models: ReadonlyArray<{ where: string; model: string }>): void => {
  if (b.usd === undefined) return;
  for (const m of models) {
    if (!priceOf(prices, m.model)) {
      throw new ConfigError(
        `budget.usd: ${m.where}.model ${JSON.stringify(m.model)} has no price in llm.prices, so its spend cannot be counted; add llm.prices.${m.model}: {input, cachedInput, output} (USD per 1M tokens) or drop budget.usd (budget.tokens needs no price)`,
      );
    }
  }
};

/**
 * One spend cap shared by every role of a run. `before` is asked ahead of each call that would reach the
 * endpoint (a response-cache hit never asks): it estimates the call from its messages and the role's mean
 * answer so far, and the ledger refuses it when the estimate would take the spend over the cap. `after` hands
 * the ledger what the server reported. The ledger is this process's unless the run's episodes are played by
 * workers, whose gates and the coordinator's then count in one ledger (src/backend/redis/spend-ledger.ts).
 */
export class SpendGate {
  private refusal: string | undefined;
  readonly ledger: SpendLedger;

  constructor(
    readonly cap: Budget,
    private readonly prices: PriceTable,
    spentBefore: Spend = NO_SPEND,
    ledger?: SpendLedger,
  ) {
    this.ledger = ledger ?? memoryLedger(cap, spentBefore);
  }

  total(): Promise<Spend> {
    return this.ledger.total();
  }

  /**
   * Output sizes of calls made before this process (recorded usage of the same model), so that the first call
   * is estimated from them rather than from a guess: a small cap left to a resumed run or a grid's later run
   * would otherwise let one call through that costs far more than the cap allows.
   */
  learn(where: string, outputs: readonly number[]): void {
    this.ledger.learn(where, outputs);
  }

  async estimate(where: string, model: string, messages: readonly Message[], tools: readonly ToolSpec[], maxOutput: number | null): Promise<Cost> {
    const input = estimateInputTokens(messages, tools);
    const seen = await this.ledger.outputs(where);
    const output = Math.min(maxOutput ?? Infinity, seen?.n ? Math.ceil(seen.sum / seen.n) : FIRST_OUTPUT_GUESS);
    const price = priceOf(this.prices, model);
    return { tokens: input + output, usd: price ? costUsd(price, { input, output, cached: 0 }) : 0 };
  }

  async before(where: string, next: Cost): Promise<void> {
    // Once refused, every later call is too: episodes in flight stop at their next call, not after a smaller one.
    if (this.refusal) throw new BudgetExceeded(this.refusal);
    const refused = await this.ledger.reserve(where, next);
    if (this.refusal) {
      // Another call was refused while this one reserved: this call is not made, so its reservation is given back.
      if (!refused) await this.ledger.release(next);
      throw new BudgetExceeded(this.refusal);
    }
    if (!refused) return;
    const s = refused.spent;
    const spent = `spent ${formatUsd(s.usd)} and ${s.tokens.toLocaleString("en")} tokens on ${s.calls} call(s)${refused.held ? " (estimates of calls in flight included)" : ""}`;
    this.refusal =
      refused.why === "over"
        ? `stopped: budget — the next ${where} call (about ${formatUsd(next.usd)}, ${next.tokens.toLocaleString("en")} tokens) would cross ${capText(refused.cap)}; ${spent}`
        : refused.why === "earlier"
          ? `stopped: budget — another call of this run was refused before this ${where} call, at ${capText(refused.cap)}; ${spent}`
          : `stopped: budget — the run's shared spend count is gone from Redis (restarted without persistence?), so this ${where} call cannot be checked against ${capText(this.cap)}; resuming the run counts its recorded usage again`;
    throw new BudgetExceeded(this.refusal);
  }

  async after(where: string, reserved: Cost, turn: { model: string; usage: { input: number; output: number; cached: number } }): Promise<void> {
    const price = priceOf(this.prices, turn.model);
    const usd = price ? costUsd(price, turn.usage) : 0;
    await this.ledger.settle(where, reserved, { usd, tokens: turn.usage.input + turn.usage.output, output: turn.usage.output });
    if (!price && this.cap.usd !== undefined) {
      throw new ConfigError(
        `budget.usd: the endpoint of ${where} answered as model ${JSON.stringify(turn.model)}, which has no price in llm.prices, so its spend cannot be counted; add llm.prices.${turn.model}`,
      );
    }
  }

  /** A call that got no answer: what `before` counted for it is given back. */
  failed(reserved: Cost): Promise<void> {
    return this.ledger.release(reserved);
  }
}

/** The model behind the gate: each call is estimated and refused before it is sent when it would cross the cap. */
export const withBudget = (inner: Wire, gate: SpendGate, o: { where: string; model: string; maxOutputTokens: number | null }): Wire => ({
  name: inner.name,
  invoke: async (messages, tools, output) => {
    const next = await gate.estimate(o.where, o.model, messages, tools, o.maxOutputTokens);
    await gate.before(o.where, next);
    let turn;
    try {
      turn = await inner.invoke(messages, tools, output);
    } catch (e) {
      await gate.failed(next);
      throw e;
    }
    await gate.after(o.where, next, turn);
    return turn;
  },
});
