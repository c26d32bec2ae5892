/** What a run has spent: answered calls (a response-cache hit is no call). */
export interface Spend {
  usd: number;
  tokens: number;
  calls: number;
}

/** A spend cap's limits (budget.ts's Budget). */
export interface Cap {
  usd?: number | undefined;
  tokens?: number | undefined;
}

/** What one model call costs, estimated or reported. */
export interface Cost {
  usd: number;
  tokens: number;
}

/** Output tokens of a role's answered calls, for the next call's estimate. */
export interface Outputs {
  sum: number;
  n: number;
}

/**
 * Why a call was refused: its estimate would cross the cap (`over`), another call of the run was refused first
 * (`earlier`), or the shared count is gone (`lost`: a Redis restarted without persistence); with the spend it met
 * (`held`: that spend includes the estimates of calls still in flight).
 */
export interface Refusal {
  why: "over" | "earlier" | "lost";
  spent: Spend;
  cap: Cap;
  held: boolean;
}

/**
 * Where a run's spend is counted for its gates (src/llm/budget.ts): in this process, or shared by every process
 * of the run (src/backend/redis/spend-ledger.ts). `reserve` refuses a call whose estimate would take the spend
 * over the cap; `settle` replaces what `reserve` counted by what the server reported; `release` drops what
 * `reserve` counted for a call that got no answer.
 */
export interface SpendLedger {
  outputs(where: string): Promise<Outputs | undefined>;
  learn(where: string, outputs: readonly number[]): void;
  reserve(where: string, next: Cost): Promise<Refusal | undefined>;
  settle(where: string, reserved: Cost, actual: Cost & { output: number }): Promise<void>;
  release(reserved: Cost): Promise<void>;
  total(): Promise<Spend>;
}

/**
 * The ledger of one process: `reserve` checks the estimate against what the answered calls spent (it holds
 * nothing, so calls in flight at once are each checked against the same spend) and `settle` adds the bill.
 */
export const memoryLedger = (cap: Cap, spentBefore: Spend): SpendLedger => {
  let spent = { ...spentBefore };
  const seen = new Map<string, Outputs>();
  const learn = (where: string, outputs: readonly number[]) => {
    if (!outputs.length) return;
    const o = seen.get(where) ?? { sum: 0, n: 0 };
    seen.set(where, { sum: o.sum + outputs.reduce((a, b) => a + b, 0), n: o.n + outputs.length });
  };
  return {
    outputs: async (where) => seen.get(where),
    learn,
    reserve: async (_where, next) => {
      const overUsd = cap.usd !== undefined && spent.usd + next.usd > cap.usd;
      const overTokens = cap.tokens !== undefined && spent.tokens + next.tokens > cap.tokens;
      return overUsd || overTokens ? { why: "over", spent: { ...spent }, cap, held: false } : undefined;
    },
    settle: async (where, _reserved, actual) => {
      spent = { usd: spent.usd + actual.usd, tokens: spent.tokens + actual.tokens, calls: spent.calls + 1 };
      learn(where, [actual.output]);
    },
    release: async () => undefined,
    total: async () => ({ ...spent }),
  };
};
