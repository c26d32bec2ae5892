import { z } from "zod";
import type { AssistantTurn } from "./chat-model.ts";
import { Role, type Price, type PriceTable } from "./config.ts";
import { isGgufIdentity } from "./llama-cpp/served.ts";

/** One model call's tokens and cost; embedded in saved records, so parsed on read. */
export const UsageRecord = z.object({
  role: Role,
  /** The model name the server reported. */
  model: z.string(),
  input: z.number().int().min(0),
  output: z.number().int().min(0),
  cached: z.number().int().min(0),
  costUsd: z.number().min(0),
  /** False when the model is missing from the price table: costUsd is then 0, not the true cost. */
  priced: z.boolean(),
  fromCache: z.boolean(),
  /** The server reported no usage: input and output are hexa's estimate. Absent: the server's counts. */
  estimated: z.boolean().optional(),
});
export type UsageRecord = z.infer<typeof UsageRecord>;

const FREE: Price = { input: 0, cachedInput: 0, output: 0 };

/**
 * The table's price for a model name, or for its base name when the server reports a dated snapshot ("-2025-04-14");
 * an embedded model (its file's hash, src/llm/llama-cpp/served.ts) costs nothing.
 */
export const priceOf = (table: PriceTable, model: string): Price | undefined =>
  table[model] ?? table[model.replace(/-\d{4}-\d{2}-\d{2}$/, "")] ?? (isGgufIdentity(model) ? FREE : undefined);

/** `cached` is a part of `input`, billed at the cached rate; the rest of the input at the full rate. */
export const costUsd = (price: Price, usage: AssistantTurn["usage"]): number =>
  (Math.max(0, usage.input - usage.cached) * price.input + usage.cached * price.cachedInput + usage.output * price.output) / 1e6;

/** A cache hit made no call, so it costs nothing now; its tokens are kept to show what it saved. */
export const usageRecord = (role: Role, turn: AssistantTurn, prices: PriceTable): UsageRecord => {
  const price = priceOf(prices, turn.model);
  const { input, output, cached } = turn.usage;
  return {
    role,
    model: turn.model,
    input,
    output,
    cached,
    costUsd: price && !turn.fromCache ? costUsd(price, turn.usage) : 0,
    priced: price !== undefined,
    fromCache: turn.fromCache,
    ...(turn.usage.estimated ? { estimated: true } : {}),
  };
};

export interface UsageTotal {
  calls: number;
  input: number;
  output: number;
  cached: number;
  costUsd: number;
  /** Calls whose model had no price: the total cost leaves them out. */
  unpricedCalls: number;
  cacheHits: number;
  /** Calls whose usage the server did not report (estimated by hexa); absent when none. */
  estimatedCalls?: number;
}

/** Sums usage records: one per episode, one per run. */
export class UsageTally {
  private sum: UsageTotal = { calls: 0, input: 0, output: 0, cached: 0, costUsd: 0, unpricedCalls: 0, cacheHits: 0 };

  add(record: UsageRecord): void {
    const s = this.sum;
    const estimated = (s.estimatedCalls ?? 0) + (record.estimated ? 1 : 0);
    this.sum = {
      calls: s.calls + 1,
      input: s.input + record.input,
      output: s.output + record.output,
      cached: s.cached + record.cached,
      costUsd: s.costUsd + record.costUsd,
      unpricedCalls: s.unpricedCalls + (record.priced ? 0 : 1),
      cacheHits: s.cacheHits + (record.fromCache ? 1 : 0),
      ...(estimated ? { estimatedCalls: estimated } : {}),
    };
  }

  total(): UsageTotal {
    return { ...this.sum };
  }
}
